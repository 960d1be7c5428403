import type { FaultRow } from '../../../store/faults.js';
import type { JournalRecord } from '../../../store/journal.js';
import type { DomainContext } from '../context.js';

const compiled = new Map<string, RegExp>();

/**
 * `{name}` stands for one segment, a trailing `*` for any rest; everything else is literal. The
 * request journal's path filter and matcher match by it too.
 */
export function pathRegExp(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (re) return re;
  const prefix = pattern.endsWith('*');
  const body = (prefix ? pattern.slice(0, -1) : pattern)
    .split('/')
    .map((segment) => (/^\{\w+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  re = new RegExp(`^${body}${prefix ? '.*' : ''}$`);
  if (compiled.size >= 1000) compiled.clear();
  compiled.set(pattern, re);
  return re;
}

function ruleMatches(rule: Pick<FaultRow, 'method' | 'path'>, method: string, path: string): boolean {
  return (rule.method === null || rule.method === method) && pathRegExp(rule.path).test(path);
}

/**
 * Counts one request against the tenant's rules and answers the rule to apply, if any. Every live
 * rule that matches counts the request in `seen`; of those that have already let `after` requests
 * through, the oldest applies and counts it in `applied`. One synchronous transaction, so the
 * counters are exact however many requests arrive at once, and they survive restarts.
 */
export function takeFault(deps: Pick<DomainContext, 'committed' | 'units'>, tenantId: string, method: string, url: string): FaultRow | undefined {
  // Nearly every request meets no rule. A plain read says so without the write transaction (and
  // its lock and commit) that counting needs; nothing else runs between this read and the
  // transaction below, so the transaction still decides on what it reads itself. Most tenants
  // have no rule at all: then not even the path is cut out of the URL.
  const live = deps.committed.cached.liveFaults(tenantId);
  if (live.length === 0) return undefined;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (!live.some((rule) => ruleMatches(rule, method, path))) return undefined;
  return deps.units.atNow(tenantId, ({ tables }) => {
    const matching = tables.cached.liveFaults(tenantId).filter((rule) => ruleMatches(rule, method, path));
    if (matching.length === 0) return undefined;
    const chosen = matching.find((rule) => rule.seen >= rule.after);
    tables.faults.count(tenantId, matching.map((rule) => rule.seq), chosen?.seq);
    return chosen;
  });
}

/**
 * What the hooks every API request runs ask of the domain (server/http/api-hooks.ts, journal.ts):
 * the fault rule that applies to it, when it arrived, and its journal row's commit. Kept apart from
 * the control service's operations, which a request reaches only through a /_mock route.
 */
export function createRequestService(deps: Pick<DomainContext, 'committed' | 'units' | 'clock' | 'journal' | 'config'>) {
  const { clock, config } = deps;
  return {
    /** The fault hook: counts a /v1 request against the tenant's rules, answers the rule to apply. */
    takeFault(tenantId: string, method: string, url: string): FaultRow | undefined {
      return takeFault(deps, tenantId, method, url);
    },

    /** When a request arrived, in the tenant's virtual time and on the wall clock, for its journal row. */
    arrival(tenantId: string): { atMs: number; wallMs: number } {
      return { atMs: clock.nowMs(tenantId), wallMs: clock.wallNow() };
    },

    /** Appends journal rows, each tenant's ring kept at the configured size, in one transaction. */
    appendJournal(entries: readonly JournalRecord[]): void {
      deps.journal.append(entries, config.journalSize);
    },
  };
}
