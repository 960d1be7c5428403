import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { setImmediate } from 'node:timers/promises';
import { z } from 'zod';
import { once } from '../../../openapi/lazy.js';
import { plain, type Plain } from '../../../openapi/plain.js';
import { addedColumns, MAX_ROWS, Snapshot, snapshotColumns, snapshotRow, SnapshotTenant, type SnapshotDocument } from '../../../openapi/snapshot.js';
import type { SnapshotRow, SnapshotTable, SnapshotValues } from '../../../store/snapshot.js';
import { badRequest } from '../errors.js';
import { describeValidation } from '../validation.js';
import { JsonSyntaxError, jsonScanner, Token, type Primitive, type TokenKind } from './scanner.js';

/*
 * A snapshot read as its bytes arrive (docs/snapshots.md, Size): rows are validated one at a time
 * against their table's row schema and kept as their values in column order (snapshotColumns),
 * in memory while the document is small, in a file per table once it is not, so the process holds
 * about one row whatever the document's size; the rest of the document (its head) is a few
 * fields, checked once the body has ended, since JSON's key order is free.
 */

/** The wall time the reading (and what watches it) goes on before it lets other requests run. */
export const SLICE_MS = 10;

/** How many bytes of spooled rows a table's buffer gathers before one write, and one read takes. */
const SPOOL_BYTES = 1 << 16;
/**
 * Characters of document whose rows are held as they were parsed. Writing them to files and
 * parsing them back twice (checks, then inserts) was a third of a 3 MB restore; rows in memory
 * take about twice their text, so the bound keeps them to tens of MiB.
 */
export const HELD_CHARS = 8 << 20;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

/** The keys the root, the tenant and its tables may have, by the frame that holds them. */
const knownKeys = once(() => ({
  root: new Set(Object.keys(Snapshot.shape)),
  tenant: new Set(Object.keys(SnapshotTenant.shape)),
  tables: new Set(Object.keys(SnapshotTenant.shape.tables.shape)),
}));

type Chunks = Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
type Head = Record<string, unknown>;

/**
 * What an open container of the document is: the root, the tenant, its tables, one table's array,
 * or a flat object (a row, the clock) whose values are all primitives.
 */
type Frame =
  | { kind: 'root' | 'tenant' | 'tables'; path: string; value: Head; keys: Set<string>; key?: string; members: number }
  | { kind: 'table'; path: string; table: SnapshotTable; index: number }
  | { kind: 'flat'; path: string; value: Head; key?: string; members: number; close(value: Head): void };

/** A document whose rows are kept (in memory or in files), its head checked: what a restore reads back. */
export interface SpooledSnapshot {
  head: SnapshotDocument;
  /** Each row of the table in document order, its values in snapshotColumns order; from files, read back one at a time. */
  rows(table: SnapshotTable): Generator<SnapshotValues>;
  /** Whether the rows are held in memory (no file): a document of at most HELD_CHARS characters. */
  held: boolean;
  /** Drops the rows and removes the files; call it once, whatever became of the restore. */
  remove(): void;
}

/** What sees the document's parts as the reader takes them, before the document has ended. */
export interface SnapshotWatch {
  /** The tenant's clock as the document spells it, not yet held to its schema. */
  clock(value: Record<string, unknown>): void;
  /** A row its table's schema took, as its columns by name, with its position in the table. */
  row(table: SnapshotTable, index: number, row: SnapshotRow): void;
}

/**
 * A table's row as its values in column order when the schema surely takes every column as it is
 * (openapi/plain.ts): the row schema's parse, which copies the row, only for the rest. The caller
 * knows the row has as many keys as the table has columns, so no other key.
 */
const rowReaders = new Map<SnapshotTable, (row: Record<string, unknown>) => SnapshotValues | undefined>();
function rowReader(table: SnapshotTable) {
  let read = rowReaders.get(table);
  if (read) return read;
  const columns = snapshotColumns()[table];
  const shape = snapshotRow(table).shape as Record<string, z.ZodType>;
  const takes: Plain[] = columns.map((column) => plain(shape[column]));
  read = (row) => {
    const values: SnapshotValues = [];
    for (let i = 0; i < columns.length; i++) {
      const value = row[columns[i]];
      if (!takes[i](value)) return undefined;
      values.push(value as SnapshotValues[number]);
    }
    return values;
  };
  rowReaders.set(table, read);
  return read;
}

/** The zod issues of a value at `path`, as a route's validation answers them. */
function refusal(path: string, issues: z.core.$ZodIssue[]) {
  const items = issues.map((issue) => ({
    keyword: issue.code,
    instancePath: `/${issue.path.join('/')}`,
    message: issue.message,
    params: issue as { keys?: string[] },
  }));
  return badRequest('invalid_snapshot', describeValidation(path, items).message);
}

const received = (token: TokenKind) => (token === Token.LEFT_BRACKET ? 'array' : 'object');

/**
 * A file for a table's spooled rows that has no name: made in the system's temporary folder and
 * unlinked at once, it is written and read through its descriptor and goes with it, so a server
 * killed mid-restore (kill -9) leaves nothing behind for anyone to clear.
 */
function unnamedFile(): number {
  const path = join(tmpdir(), `nodus-mock-spool-${randomBytes(8).toString('hex')}`);
  const fd = openSync(path, 'wx+', 0o600);
  unlinkSync(path);
  return fd;
}

/**
 * Each table's rows, held in memory until `spill` (the document is past HELD_CHARS), then as lines
 * of JSON in a file of their own, written in blocks.
 */
function createSpools() {
  let held: Map<SnapshotTable, SnapshotValues[]> | undefined = new Map();
  const files = new Map<SnapshotTable, { fd: number; pending: string[]; bytes: number }>();
  const flush = (file: { fd: number; pending: string[]; bytes: number }) => {
    if (file.pending.length) writeSync(file.fd, file.pending.join(''));
    file.pending = [];
    file.bytes = 0;
  };
  const append = (table: SnapshotTable, row: SnapshotValues) => {
    let file = files.get(table);
    if (!file) files.set(table, (file = { fd: unnamedFile(), pending: [], bytes: 0 }));
    const line = `${JSON.stringify(row)}\n`;
    file.pending.push(line);
    file.bytes += line.length;
    if (file.bytes >= SPOOL_BYTES) flush(file);
  };
  return {
    write(table: SnapshotTable, row: SnapshotValues): void {
      if (!held) return append(table, row);
      const rows = held.get(table);
      if (rows) rows.push(row);
      else held.set(table, [row]);
    },
    held: () => held !== undefined,
    /** From now on, rows go to files, the ones held first. */
    spill(): void {
      if (!held) return;
      const rows = held;
      held = undefined;
      for (const [table, list] of rows) for (const row of list) append(table, row);
    },
    finish(): void {
      for (const file of files.values()) flush(file);
    },
    *rows(table: SnapshotTable): Generator<SnapshotValues> {
      if (held) {
        yield* held.get(table) ?? [];
        return;
      }
      const file = files.get(table);
      if (!file) return; // no row of the table
      let rest = Buffer.alloc(0);
      const block = Buffer.allocUnsafe(SPOOL_BYTES);
      // Read from its start at each call (checks, then inserts), by position.
      for (let position = 0, read: number; (read = readSync(file.fd, block, 0, SPOOL_BYTES, position)) > 0; position += read) {
        // A line break is never part of a multi-byte character, so lines are cut as bytes.
        let data = Buffer.concat([rest, block.subarray(0, read)]);
        for (let end = data.indexOf(0x0a); end >= 0; end = data.indexOf(0x0a)) {
          yield JSON.parse(data.toString('utf8', 0, end)) as SnapshotValues;
          data = data.subarray(end + 1);
        }
        rest = Buffer.from(data);
      }
    },
    remove(): void {
      held?.clear();
      for (const file of files.values()) closeSync(file.fd);
      files.clear();
    },
  };
}

/**
 * Reads a snapshot from its bytes: the JSON tokens (jsonScanner) walked against the document's
 * shape, each row parsed whole, validated and spooled as it completes (and shown to `watch`), the
 * head kept. Throws the refusal of the first problem (`invalid_json`, `invalid_snapshot` with the
 * path of the row, as the whole-document parse words it), leaving no file behind, as does a
 * stream that fails (a client gone). The byte limit is the caller's: `chunks` ends or throws at it.
 * Between pieces of text, the event loop turns every SLICE_MS.
 */
export async function readSnapshot(chunks: Chunks, root: 'body' | 'file', watch?: SnapshotWatch): Promise<SpooledSnapshot> {
  const spools = createSpools();
  try {
    const head = await walk(chunks, spools, root, watch);
    spools.finish();
    return { head, rows: (table) => spools.rows(table), held: spools.held(), remove: () => spools.remove() };
  } catch (err) {
    spools.remove();
    throw err;
  }
}

/**
 * The columns a version added (addedColumns), filled in where a row leaves them out, with where
 * each was first left out and first written: whether that fits the document's version is known
 * only once its head is read, JSON's key order being free.
 */
function createAddedColumns(root: string) {
  const seen = new Map<string, { table: SnapshotTable; column: string; version: number; missing?: number; present?: number }>();
  return {
    fill(table: SnapshotTable, index: number, values: SnapshotValues, row: SnapshotRow): void {
      for (const added of addedColumns(table)) {
        const key = `${table}.${added.column}`;
        let first = seen.get(key);
        if (!first) seen.set(key, (first = { table, column: added.column, version: added.version }));
        if (values[added.position] !== undefined) first.present ??= index;
        else {
          values[added.position] = added.value;
          (row as Record<string, unknown>)[added.column] = added.value;
          first.missing ??= index;
        }
      }
    },
    /** Throws when a row has a column its document's version does not, or lacks one it does. */
    check(version: number): void {
      for (const first of seen.values()) {
        const newer = version >= first.version;
        const index = newer ? first.missing : first.present;
        if (index === undefined) continue;
        const reason = newer ? `is required from version ${first.version} on` : `is not in version ${version}`;
        throw badRequest('invalid_snapshot', `${root}.tenant.tables.${first.table}.${index}.${first.column}: ${reason}`);
      }
    },
  };
}

async function walk(chunks: Chunks, spools: ReturnType<typeof createSpools>, root: 'body' | 'file', watch: SnapshotWatch | undefined): Promise<SnapshotDocument> {
  const invalidJson = (why: string) => badRequest('invalid_json', `${root === 'body' ? 'request body is ' : ''}not valid JSON: ${why}`);
  let doc: unknown;
  let started = false;
  let ended = false;
  const stack: Frame[] = [];
  const added = createAddedColumns(root);

  /** A row its table's schema took, as the newest version holds it, spooled and shown to the watch. */
  const hold = (table: SnapshotTable, index: number, values: SnapshotValues, row: SnapshotRow) => {
    added.fill(table, index, values, row);
    spools.write(table, values);
    watch?.row(table, index, row);
  };
  /** A row, held to its table's schema (parsed by it) and spooled. */
  const keep = (table: SnapshotTable, path: string, index: number, value: unknown) => {
    const parsed = snapshotRow(table).safeParse(value);
    if (!parsed.success) throw refusal(path, parsed.error.issues);
    const row = parsed.data as SnapshotRow;
    hold(table, index, snapshotColumns()[table].map((column) => row[column]), row);
  };

  /** The position of the table's next row; refused when the table holds no more. */
  const nextRow = (top: Extract<Frame, { kind: 'table' }>) => {
    const index = top.index++;
    const max = MAX_ROWS[top.table as keyof typeof MAX_ROWS] as number | undefined;
    if (max !== undefined && index >= max) {
      throw refusal(top.path, z.array(z.unknown()).max(max).safeParse(new Array(max + 1).fill(null)).error!.issues);
    }
    return index;
  };

  /** A value that starts at the top frame's current key (or index): a container opens a frame. */
  const begin = (token: TokenKind, value: Primitive) => {
    const top = stack.at(-1);
    const container = token === Token.LEFT_BRACE || token === Token.LEFT_BRACKET;
    if (!top) {
      started = true;
      if (!container) {
        doc = value;
        ended = true;
      } else if (token === Token.LEFT_BRACE) {
        const head: Head = {};
        doc = head;
        stack.push({ kind: 'root', path: root, value: head, keys: new Set(), members: 0 });
      } else {
        throw wrongKind(root, 'object', token);
      }
      return;
    }
    if (top.kind === 'table') {
      const index = nextRow(top);
      const path = `${top.path}.${index}`;
      if (token === Token.LEFT_BRACE) stack.push({ kind: 'flat', path, value: {}, members: 0, close: (row) => keep(top.table, path, index, row) });
      else if (token === Token.LEFT_BRACKET) throw wrongKind(path, 'object', token);
      else keep(top.table, path, index, value);
      return;
    }
    const key = top.key!;
    const path = `${top.path}.${key}`;
    if (!container) {
      top.value[key] = value;
      if (top.kind === 'root' && (key === 'format' || key === 'version')) {
        // Checked at once: a document of another format or a newer version would otherwise be
        // refused for its first row this server does not know.
        const parsed = Snapshot.shape[key].safeParse(value);
        if (!parsed.success) throw refusal(path, parsed.error.issues);
      }
      return;
    }
    const expected = top.kind === 'root' ? (key === 'tenant' ? 'object' : undefined)
      : top.kind === 'tenant' ? (key === 'tables' || key === 'clock' ? 'object' : undefined)
        : top.kind === 'tables' ? 'array' : undefined;
    if (expected === undefined || expected !== received(token)) throw wrongKind(path, expected, token);
    if (top.kind === 'tables') {
      top.value[key] = [];
      stack.push({ kind: 'table', path, table: key as SnapshotTable, index: 0 });
    } else if (top.kind === 'tenant' && key === 'clock') {
      stack.push({ kind: 'flat', path, value: {}, members: 0, close: (clock) => {
        top.value.clock = clock;
        watch?.clock(clock);
      } });
    } else {
      const value: Head = {};
      top.value[key] = value;
      stack.push({ kind: top.kind === 'root' ? 'tenant' : 'tables', path, value, keys: new Set(), members: 0 });
    }
  };

  /** An object's key: unknown ones are refused before their value is read, whatever its size. */
  const keyOf = (top: Extract<Frame, { value: Head }>, key: string) => {
    const path = `${top.path}.${key}`;
    if (FORBIDDEN_KEYS.has(key)) throw badRequest('invalid_json', `key "${key}" is not allowed (at ${path})`);
    if (Object.hasOwn(top.value, key) || (top.kind !== 'flat' && top.keys.has(key))) throw badRequest('invalid_json', `duplicate key at ${path}`);
    const known = top.kind === 'flat' ? undefined : knownKeys()[top.kind];
    if (known && !known.has(key)) throw badRequest('invalid_snapshot', `${path}: unknown field`);
    if (top.kind !== 'flat') top.keys.add(key);
    top.key = key;
    top.members++;
  };

  // Where the walk is in the container on top: before a key, before its colon, before a value, after one.
  let state: 'value' | 'key' | 'colon' | 'next' = 'value';
  const close = () => {
    const frame = stack.pop()!;
    if (frame.kind === 'flat') frame.close(frame.value);
    if (stack.length === 0) ended = true;
    state = 'next';
  };
  const onToken = (token: TokenKind, value: Primitive) => {
    if (ended) throw invalidJson(`unexpected ${JSON.stringify(value)} after the document`);
    const top = stack.at(-1);
    switch (state) {
      case 'value':
        if (token === Token.RIGHT_BRACKET && top?.kind === 'table' && top.index === 0) return close();
        if (token === Token.COLON || token === Token.COMMA || token === Token.RIGHT_BRACE || token === Token.RIGHT_BRACKET) break;
        if (top?.kind === 'flat' && (token === Token.LEFT_BRACE || token === Token.LEFT_BRACKET)) {
          throw wrongKind(`${top.path}.${top.key}`, undefined, token);
        }
        if (top?.kind === 'flat') {
          top.value[top.key!] = value;
          state = 'next';
          return;
        }
        begin(token, value);
        state = token === Token.LEFT_BRACE ? 'key' : token === Token.LEFT_BRACKET ? 'value' : 'next';
        return;
      case 'key':
        if (top && top.kind !== 'table') {
          if (token === Token.RIGHT_BRACE && top.members === 0) return close();
          if (token === Token.STRING) {
            keyOf(top, value as string);
            state = 'colon';
            return;
          }
        }
        break;
      case 'colon':
        if (token === Token.COLON) {
          state = 'value';
          return;
        }
        break;
      case 'next':
        if (!top) break;
        if (token === Token.COMMA) {
          state = top.kind === 'table' ? 'value' : 'key';
          return;
        }
        if (token === (top.kind === 'table' ? Token.RIGHT_BRACKET : Token.RIGHT_BRACE)) return close();
        break;
    }
    throw invalidJson(`unexpected ${JSON.stringify(value)}`);
  };

  /**
   * A row whose text is a flat object that JSON.parse reads, writing each of its keys once and
   * none that is forbidden, is what the walk would build from its tokens: it goes straight to
   * its table, without its schema's parse when it writes exactly the table's columns, each one
   * the schema takes as it is. Any other is walked token by token, which refuses it at its first
   * problem as for any other part of the document.
   */
  const object = (text: string, flat: boolean, keys: number, at: number) => {
    if (flat) {
      let value: Head | undefined;
      try {
        value = JSON.parse(text) as Head;
      } catch {
        // walked below, to the first problem
      }
      if (value !== undefined) {
        const top = stack.at(-1) as Extract<Frame, { kind: 'table' }>;
        // As many keys as columns, each column there: the columns, each written once.
        const values = keys === snapshotColumns()[top.table].length ? rowReader(top.table)(value) : undefined;
        if (values !== undefined) {
          hold(top.table, nextRow(top), values, value as SnapshotRow);
          state = 'next';
          return;
        }
        if (Object.keys(value).length === keys && !Object.hasOwn(value, '__proto__') && !Object.hasOwn(value, 'constructor')) {
          const index = nextRow(top);
          keep(top.table, `${top.path}.${index}`, index, value);
          state = 'next';
          return;
        }
      }
    }
    const tokens = jsonScanner({ token: onToken }, at);
    tokens.write(text);
    tokens.end();
  };
  const scanner = jsonScanner({
    token: onToken,
    takesObject: () => !ended && state === 'value' && stack.at(-1)?.kind === 'table',
    object,
  });
  const fed = (write: () => void) => {
    try {
      write();
    } catch (err) {
      throw err instanceof JsonSyntaxError ? invalidJson(err.message) : err;
    }
  };
  const decoder = new StringDecoder('utf8');
  let read = 0;
  let turned = performance.now();
  for await (const chunk of chunks) {
    const text = decoder.write(chunk);
    fed(() => scanner.write(text));
    if ((read += text.length) > HELD_CHARS) spools.spill();
    if (performance.now() - turned > SLICE_MS) {
      await setImmediate();
      turned = performance.now();
    }
  }
  fed(() => {
    scanner.write(decoder.end());
    scanner.end();
  });
  if (started && !ended) throw invalidJson('it ends before the document does');

  // The head, its tables empty (their rows were each checked), against the whole document's schema.
  const parsed = Snapshot.safeParse(doc);
  if (!parsed.success) throw refusal(root, parsed.error.issues);
  added.check(parsed.data.version);
  return parsed.data;
}

function wrongKind(path: string, expected: 'object' | 'array' | undefined, token: TokenKind) {
  const message = `Invalid input: expected ${expected ?? 'a string, number, boolean or null'}, received ${received(token)}`;
  return badRequest('invalid_snapshot', `${path}: ${message}`);
}
