import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

export interface JournalRow {
  id: number;
  atMs: number;
  wallMs: number;
  method: string;
  path: string;
  /** The raw query string without `?` ('' when none). */
  query: string;
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
  /** Exact path, or with `prefix` every path that starts with it. */
  path?: string;
  prefix?: boolean;
}

type Stored = Omit<JournalRow, 'replayed' | 'bodyJson' | 'bodyTruncated'> & { replayed: number; bodyJson: number; bodyTruncated: number };

// The wire id is the per-tenant seq; the table's own id is the server's, shared by every tenant.
const COLUMNS = `seq AS id, at_ms AS atMs, wall_ms AS wallMs, method, path, query, status, request_id AS requestId,
  idempotency_key AS idempotencyKey, replayed, fault, fault_id AS faultId, body, body_json AS bodyJson,
  body_bytes AS bodyBytes, body_truncated AS bodyTruncated, duration_ms AS durationMs`;

export function createJournalStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO request_journal (tenant_id, seq, at_ms, wall_ms, method, path, query, status, request_id,
       idempotency_key, replayed, fault, fault_id, body, body_json, body_bytes, body_truncated, duration_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // The tenant's last seq, kept beside its rows so that clearing them never hands a number out again.
  const lastSeq = db.prepare<[string], number>('SELECT last_seq FROM journal_numbers WHERE tenant_id = ?').pluck();
  const saveSeq = db.prepare(
    'INSERT INTO journal_numbers (tenant_id, last_seq) VALUES (?, ?) ON CONFLICT (tenant_id) DO UPDATE SET last_seq = excluded.last_seq',
  );
  const evict = db.prepare('DELETE FROM request_journal WHERE tenant_id = ? AND seq <= ?');
  const clear = db.prepare('DELETE FROM request_journal WHERE tenant_id = ?');
  // One statement per combination of filters (four at most), prepared on first use.
  const filtered = new Map<string, Statement<unknown[], Stored>>();
  const toRow = (r: Stored): JournalRow => ({ ...r, replayed: r.replayed === 1, bodyJson: r.bodyJson === 1, bodyTruncated: r.bodyTruncated === 1 });
  return {
    /** Appends rows in order and evicts what falls out of each tenant's ring of `size`, in one transaction. */
    append: db.transaction((entries: readonly JournalRecord[], size: number): void => {
      // Each tenant's newest seq is read once per append, not once per row.
      const newest = new Map<string, number>();
      for (const { tenantId, row: r } of entries) {
        const seq = (newest.get(tenantId) ?? lastSeq.get(tenantId) ?? 0) + 1;
        insert.run(
          tenantId, seq, r.atMs, r.wallMs, r.method, r.path, r.query, r.status, r.requestId, r.idempotencyKey,
          r.replayed ? 1 : 0, r.fault, r.faultId, r.body, r.bodyJson ? 1 : 0, r.bodyBytes, r.bodyTruncated ? 1 : 0, r.durationMs,
        );
        newest.set(tenantId, seq);
      }
      for (const [tenantId, seq] of newest) {
        saveSeq.run(tenantId, seq);
        evict.run(tenantId, seq - size);
      }
    }),
    /** Newest first. */
    list(tenantId: string, f: JournalFilter): JournalRow[] {
      const where = ['tenant_id = ?'];
      const args: unknown[] = [tenantId];
      if (f.method !== undefined) {
        where.push('method = ?');
        args.push(f.method);
      }
      if (f.path !== undefined) {
        where.push(f.prefix ? 'substr(path, 1, length(?)) = ?' : 'path = ?');
        args.push(...(f.prefix ? [f.path, f.path] : [f.path]));
      }
      const sql = `SELECT ${COLUMNS} FROM request_journal WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`;
      let statement = filtered.get(sql);
      if (!statement) filtered.set(sql, (statement = db.prepare<unknown[], Stored>(sql)));
      return statement.all(...args, f.limit).map(toRow);
    },
    clear(tenantId: string): number {
      return clear.run(tenantId).changes;
    },
  };
}
