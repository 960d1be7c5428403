import type { z } from 'zod';
import { JOURNAL_ROOTS, UNJOURNALED_HEADERS, type JournalMatch, type JournalQuery } from '../../../openapi/mock.js';
import type { JournalKind, JournalRow } from '../../../store/journal.js';
import { canonicalJson, nestsTooDeep } from '../json-text.js';
import type { DomainContext } from '../context.js';
import { invalidRequest } from '../errors.js';
import { pathRegExp } from './requests.js';

/** The query string as an object: a repeated name gives an array. */
export function queryFields(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(query)) {
    const seen = out[name];
    out[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return out;
}

/**
 * The body as a JSON value; undefined when there was none, it was text, it was cut, it is not
 * JSON though sent as such, or it nests too deep to be a value at all.
 */
export function bodyValue(row: JournalRow): unknown {
  if (row.body === null || row.bodyTruncated || !row.bodyJson || nestsTooDeep(row.body)) return undefined;
  try {
    return JSON.parse(row.body);
  } catch {
    return undefined;
  }
}

/** The value a JSON pointer (RFC 6901) names in `value`, or `found: false` when it names none. */
function pointTo(value: unknown, pointer: string): { found: boolean; value?: unknown } {
  let at = value;
  for (const step of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const key = step.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(at)) {
      if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) >= at.length) return { found: false };
      at = at[Number(key)];
    } else if (typeof at === 'object' && at !== null && Object.hasOwn(at, key)) {
      at = (at as Record<string, unknown>)[key];
    } else {
      return { found: false };
    }
  }
  return at === undefined ? { found: false } : { found: true, value: at };
}

/** A path pattern as fault rules take it, with the literal start the store can narrow by. */
interface PathFilter {
  prefix: string;
  test(path: string): boolean;
}

/**
 * The filter of a path pattern (exact, `{name}` templates, trailing `*`), matched as fault rules
 * match; refused when it can match no row of the kinds asked for, which lie under their roots.
 */
function pathFilter(pattern: string | undefined, kind: JournalKind | undefined): PathFilter | undefined {
  if (pattern === undefined) return undefined;
  const wild = pattern.search(/[{*]/);
  const prefix = wild === -1 ? pattern : pattern.slice(0, wild);
  const roots: string[] = kind ? [JOURNAL_ROOTS[kind]] : Object.values(JOURNAL_ROOTS);
  // A literal start inside a root, or a root that the part after the literal start can still reach.
  if (!roots.some((root) => prefix.startsWith(root) || (wild !== -1 && root.startsWith(prefix)))) {
    throw invalidRequest(`path ${pattern} can match no journaled request: ${kind ? `${kind} rows lie` : 'the journal holds requests'} under ${roots.join(' and ')}`);
  }
  const re = pathRegExp(pattern);
  return { prefix, test: (path) => re.test(path) };
}

export interface JournalPage {
  /** Newest first. */
  rows: JournalRow[];
  evicted: number;
}

/** GET /_mock/requests: newest first, filtered by method (any case), kind and path pattern. */
export function listRequests(deps: Pick<DomainContext, 'journal'>, tenantId: string, query: z.output<typeof JournalQuery>): JournalPage {
  const { limit, method, kind } = query;
  const path = pathFilter(query.path, kind);
  const rows = deps.journal.list(tenantId, { limit, method: method?.toUpperCase(), kind, pathPrefix: path?.prefix, path: path?.test });
  return { rows, evicted: deps.journal.evicted(tenantId) };
}

export interface Difference {
  /** `method`, `path`, `kind`, `status`, `replayed`, `query.<name>`, `headers.<name>` or `body.<pointer>`. */
  field: string;
  expected: unknown;
  /** null when the request has no such field (then `absent`). */
  actual: unknown;
  absent?: true;
}

export interface JournalMatches {
  /** Oldest first, at most the limit asked for. */
  matches: JournalRow[];
  count: number;
  evicted: number;
  /** Without a match: the rows that differ in the fewest fields, newest first among equals. */
  nearest: { row: JournalRow; differences: Difference[] }[];
}

const NEAREST = 3;

/**
 * POST /_mock/requests/match: every row of the journal held to the expectation, field by field.
 * The rows that pass them all match; when none does, the nearest say what differs. A header the
 * journal never keeps can match no request, and is refused as a path outside the roots is.
 */
export function matchRequests(deps: Pick<DomainContext, 'journal'>, tenantId: string, expected: z.output<typeof JournalMatch>): JournalMatches {
  const path = pathFilter(expected.path, expected.kind);
  const method = expected.method?.toUpperCase();
  const headers = Object.entries(expected.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value] as const);
  const unkept = headers.find(([name]) => UNJOURNALED_HEADERS.includes(name));
  if (unkept) throw invalidRequest(`headers.${unkept[0]}: the journal never keeps this header, so no request can match`);
  const query = Object.entries(expected.query ?? {});
  const body = Object.entries(expected.body ?? {});

  const differences = (row: JournalRow): Difference[] => {
    const out: Difference[] = [];
    const differ = (field: string, want: unknown, actual: unknown) => out.push({ field, expected: want, actual });
    const absent = (field: string, want: unknown) => out.push({ field, expected: want, actual: null, absent: true });
    if (method !== undefined && row.method !== method) differ('method', method, row.method);
    if (path && !path.test(row.path)) differ('path', expected.path, row.path);
    if (expected.kind !== undefined && row.kind !== expected.kind) differ('kind', expected.kind, row.kind);
    if (expected.status !== undefined && row.status !== expected.status) differ('status', expected.status, row.status);
    if (expected.replayed !== undefined && row.replayed !== expected.replayed) differ('replayed', expected.replayed, row.replayed);
    if (query.length) {
      const sent = queryFields(row.query);
      for (const [name, want] of query) {
        const actual = sent[name];
        if (actual === undefined) absent(`query.${name}`, want);
        else if (canonicalJson(actual) !== canonicalJson(want)) differ(`query.${name}`, want, actual);
      }
    }
    for (const [name, want] of headers) {
      const actual = row.headers[name];
      if (actual === undefined) absent(`headers.${name}`, want);
      else if (actual !== want) differ(`headers.${name}`, want, actual);
    }
    if (body.length) {
      const sent = bodyValue(row);
      for (const [pointer, want] of body) {
        const at = sent === undefined ? { found: false } : pointTo(sent, pointer);
        if (!at.found) absent(`body.${pointer}`, want);
        else if (canonicalJson(at.value) !== canonicalJson(want)) differ(`body.${pointer}`, want, at.value);
      }
    }
    return out;
  };

  const matches: JournalRow[] = [];
  let count = 0;
  let nearest: JournalMatches['nearest'] = [];
  for (const row of deps.journal.each(tenantId)) {
    const found = differences(row);
    if (found.length === 0) {
      if (count++ < expected.limit) matches.push(row);
      continue;
    }
    if (count > 0) continue;
    // Rows come oldest first: a later row as near as a kept one goes before it.
    const at = nearest.findIndex((n) => found.length <= n.differences.length);
    if (at !== -1) nearest.splice(at, 0, { row, differences: found });
    else if (nearest.length < NEAREST) nearest.push({ row, differences: found });
    if (nearest.length > NEAREST) nearest.pop();
  }
  if (count > 0) nearest = [];
  return { matches, count, evicted: deps.journal.evicted(tenantId), nearest };
}
