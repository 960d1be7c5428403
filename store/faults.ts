import type { Db } from './db.js';

export type FaultSource = 'api' | 'scenario';

export interface FaultRow {
  seq: number;
  id: string;
  tenantId: string;
  method: string | null;
  path: string;
  times: number;
  after: number;
  seen: number;
  applied: number;
  /** JSON of the rule's action. */
  action: string;
  source: FaultSource;
  createdAtMs: number;
}

type NewFault = Omit<FaultRow, 'seq' | 'seen' | 'applied'>;

export const FAULT_COLUMNS = `seq, id, tenant_id AS tenantId, method, path, times, after_count AS after, seen, applied, action,
  source, created_at_ms AS createdAtMs`;

export function createFaultStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO faults (id, tenant_id, method, path, times, after_count, action, source, created_at_ms)
     VALUES (@id, @tenantId, @method, @path, @times, @after, @action, @source, @createdAtMs)`,
  );
  const get = db.prepare<[string, string], FaultRow>(`SELECT ${FAULT_COLUMNS} FROM faults WHERE tenant_id = ? AND id = ?`);
  const list = db.prepare<[string], FaultRow>(`SELECT ${FAULT_COLUMNS} FROM faults WHERE tenant_id = ? ORDER BY seq`);
  const remove = db.prepare('DELETE FROM faults WHERE tenant_id = ? AND id = ?');
  const clear = db.prepare('DELETE FROM faults WHERE tenant_id = ?');
  const clearSource = db.prepare('DELETE FROM faults WHERE tenant_id = ? AND source = ?');
  const see = db.prepare('UPDATE faults SET seen = seen + 1 WHERE seq = ? AND tenant_id = ?');
  const apply = db.prepare('UPDATE faults SET applied = applied + 1 WHERE seq = ? AND tenant_id = ?');
  return {
    insert(row: NewFault): void {
      insert.run(row);
    },
    get(tenantId: string, id: string): FaultRow | undefined {
      return get.get(tenantId, id);
    },
    /** Every rule of the tenant, oldest first, exhausted ones included. */
    list(tenantId: string): FaultRow[] {
      return list.all(tenantId);
    },
    delete(tenantId: string, id: string): boolean {
      return remove.run(tenantId, id).changes > 0;
    },
    /** Removes the tenant's rules, or only those from one source. */
    clear(tenantId: string, source?: FaultSource): number {
      return (source ? clearSource.run(tenantId, source) : clear.run(tenantId)).changes;
    },
    /**
     * Counts one matching request against each of the tenant's rules in `seen`, and one
     * application of `applied`; a seq of another tenant's rule counts nothing.
     */
    count(tenantId: string, seen: readonly number[], applied: number | undefined): void {
      for (const seq of seen) see.run(seq, tenantId);
      if (applied !== undefined) apply.run(applied, tenantId);
    },
  };
}
