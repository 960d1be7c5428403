import type { Db } from './db.js';

export interface SecretRow {
  id: string;
  tenantId: string;
  name: string;
  version: number;
  /** When the current version was written. */
  createdAtMs: number;
}

const COLUMNS = 'id, tenant_id AS tenantId, name, version, created_at_ms AS createdAtMs';

/** Secret metadata; the values are never stored (migration 010 says why). */
export function createSecretStore(db: Db) {
  const byName = db.prepare<[string, string], SecretRow>(`SELECT ${COLUMNS} FROM secrets WHERE tenant_id = ? AND name = ?`);
  const byId = db.prepare<[string, string], SecretRow>(`SELECT ${COLUMNS} FROM secrets WHERE tenant_id = ? AND id = ?`);
  const list = db.prepare<[string], SecretRow>(`SELECT ${COLUMNS} FROM secrets WHERE tenant_id = ? ORDER BY seq`);
  const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM secrets WHERE tenant_id = ?');
  const insert = db.prepare('INSERT INTO secrets (id, tenant_id, name, version, created_at_ms) VALUES (@id, @tenantId, @name, @version, @createdAtMs)');
  const bump = db.prepare('UPDATE secrets SET version = version + 1, created_at_ms = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM secrets WHERE id = ?');
  return {
    byName(tenantId: string, name: string): SecretRow | undefined {
      return byName.get(tenantId, name);
    },
    /** Another tenant's secret is indistinguishable from a missing one. */
    byId(tenantId: string, id: string): SecretRow | undefined {
      return byId.get(tenantId, id);
    },
    /** Oldest first. */
    list(tenantId: string): SecretRow[] {
      return list.all(tenantId);
    },
    count(tenantId: string): number {
      return count.get(tenantId)!.n;
    },
    insert(row: SecretRow): void {
      insert.run(row);
    },
    /** The next version of an existing secret. */
    bump(id: string, nowMs: number): void {
      bump.run(nowMs, id);
    },
    remove(id: string): void {
      remove.run(id);
    },
  };
}
