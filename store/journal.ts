import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

export type JournalKind = 'api' | 'control';

export interface JournalRow {
  id: number;
  kind: JournalKind;
  atMs: number;
  wallMs: number;
  method: string;
  path: string;
  /** The raw query string without `?` ('' when none). */
  query: string;
  /** Lower-case names in the order they arrived. */
  headers: Record<string, string>;
  headersTruncated: boolean;
  status: number | null;
  requestId: string;
  idempotencyKey: string | null;
  replayed: boolean;
  fault: string | null;
  faultId: string | null;
  /** The body text as received (cut when bodyTruncated), or null when there was none. */
  body: string | null;
  /** The text was sent as JSON (it may still fail to parse: the client sent what it sent). */
  bodyJson: boolean;
  bodyBytes: number;
  bodyTruncated: boolean;
  durationMs: number;
}

export type NewJournalRow = Omit<JournalRow, 'id'>;

export interface JournalRecord {
  tenantId: string;
  row: NewJournalRow;
}

interface JournalFilter {
  limit: number;
  method?: string;
  kind?: JournalKind;
  /** Only paths that start with this. */
  pathPrefix?: string;
  /** Only rows whose path it accepts. */
  path?: (path: string) => boolean;
}

type Stored = Omit<JournalRow, 'replayed' | 'bodyJson' | 'bodyTruncated' | 'headers' | 'headersTruncated'> & {
  replayed: number; bodyJson: number; bodyTruncated: number; headers: string; headersTruncated: number;
};

// The wire id is the per-tenant seq; the table's own id is the server's, shared by every tenant.
const COLUMNS = `seq AS id, kind, at_ms AS atMs, wall_ms AS wallMs, method, path, query, headers, headers_truncated AS headersTruncated,
  status, request_id AS requestId, idempotency_key AS idempotencyKey, replayed, fault, fault_id AS faultId, body, body_json AS bodyJson,
  body_bytes AS bodyBytes, body_truncated AS bodyTruncated, duration_ms AS durationMs`;

export function createJournalStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO request_journal (tenant_id, seq, kind, at_ms, wall_ms, method, path, query, headers, headers_truncated, status,
       request_id, idempotency_key, replayed, fault, fault_id, body, body_json, body_bytes, body_truncated, duration_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The tenant's last seq, kept beside its rows so that clearing them never hands a number out again.
  const lastSeq = db.prepare<[string], number>('SELECT last_seq FROM journal_numbers WHERE tenant_id = ?').pluck();
  const saveSeq = db.prepare(
    `INSERT INTO journal_numbers (tenant_id, last_seq, evicted) VALUES (?, ?, ?)
     ON CONFLICT (tenant_id) DO UPDATE SET last_seq = excluded.last_seq, evicted = evicted + excluded.evicted`,
  );
  const evict = db.prepare('DELETE FROM request_journal WHERE tenant_id = ? AND seq <= ?');
  const evictedCount = db.prepare<[string], number>('SELECT evicted FROM journal_numbers WHERE tenant_id = ?').pluck();
  const clear = db.prepare('DELETE FROM request_journal WHERE tenant_id = ?');
  const forgetEvicted = db.prepare('UPDATE journal_numbers SET evicted = 0 WHERE tenant_id = ?');
  const oldestFirst = db.prepare<[string], Stored>(`SELECT ${COLUMNS} FROM request_journal WHERE tenant_id = ? ORDER BY seq`);
  // One statement per combination of filters (eight at most), prepared on first use.
  const filtered = new Map<string, Statement<unknown[], Stored>>();
  const toRow = (r: Stored): JournalRow => ({
    ...r,
    headers: JSON.parse(r.headers) as Record<string, string>,
    headersTruncated: r.headersTruncated === 1,
    replayed: r.replayed === 1,
    bodyJson: r.bodyJson === 1,
    bodyTruncated: r.bodyTruncated === 1,
  });
  return {
    /** Appends rows in order and evicts what falls out of each tenant's ring of `size`, in one transaction. */
    append: db.transaction((entries: readonly JournalRecord[], size: number): void => {
      // Each tenant's newest seq is read once per append, not once per row.
      const newest = new Map<string, number>();
      for (const { tenantId, row: r } of entries) {
        const seq = (newest.get(tenantId) ?? lastSeq.get(tenantId) ?? 0) + 1;
        insert.run(
          tenantId, seq, r.kind, r.atMs, r.wallMs, r.method, r.path, r.query, JSON.stringify(r.headers), r.headersTruncated ? 1 : 0,
          r.status, r.requestId, r.idempotencyKey, r.replayed ? 1 : 0, r.fault, r.faultId, r.body, r.bodyJson ? 1 : 0, r.bodyBytes,
          r.bodyTruncated ? 1 : 0, r.durationMs,
        );
        newest.set(tenantId, seq);
      }
      for (const [tenantId, seq] of newest) saveSeq.run(tenantId, seq, evict.run(tenantId, seq - size).changes);
    }),
    /** Newest first, at most `limit` rows that pass every filter. */
    list(tenantId: string, f: JournalFilter): JournalRow[] {
      const where = ['tenant_id = ?'];
      const args: unknown[] = [tenantId];
      if (f.method !== undefined) {
        where.push('method = ?');
        args.push(f.method);
      }
      if (f.kind !== undefined) {
        where.push('kind = ?');
        args.push(f.kind);
      }
      if (f.pathPrefix) {
        where.push('substr(path, 1, length(?)) = ?');
        args.push(f.pathPrefix, f.pathPrefix);
      }
      const sql = `SELECT ${COLUMNS} FROM request_journal WHERE ${where.join(' AND ')} ORDER BY seq DESC`;
      let statement = filtered.get(sql);
      if (!statement) filtered.set(sql, (statement = db.prepare<unknown[], Stored>(sql)));
      const rows: JournalRow[] = [];
      // Stepped one row at a time: the path test may pass few of them, and the limit ends the read.
      for (const stored of statement.iterate(...args)) {
        if (f.path && !f.path(stored.path)) continue;
        rows.push(toRow(stored));
        if (rows.length >= f.limit) break;
      }
      return rows;
    },
    /** Every row of the tenant, oldest first, one at a time. */
    *each(tenantId: string): Generator<JournalRow> {
      for (const stored of oldestFirst.iterate(tenantId)) yield toRow(stored);
    },
    /** Rows evicted since the journal was last emptied. */
    evicted(tenantId: string): number {
      return evictedCount.get(tenantId) ?? 0;
    },
    /** Empties the journal; its numbering goes on. */
    clear: db.transaction((tenantId: string): number => {
      forgetEvicted.run(tenantId);
      return clear.run(tenantId).changes;
    }),
  };
}
