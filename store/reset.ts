import type { Db } from './db.js';
import { tenantTables, type TablesWhere } from './tenant-tables.js';

/** The tables reset deletes a tenant's rows of by `tenant_id`, in the registry's order: the keys of its answer. */
const DELETED = tenantTables.flatMap(([table, { reset }]) => (reset === 'deleted' ? [table] : []));

export type ResetCounts = Record<TablesWhere<'reset', 'deleted'>, number>;

export function createResetStore(db: Db) {
  const deletes = DELETED.map((table) => [table, db.prepare(`DELETE FROM ${table} WHERE tenant_id = ?`)] as const);
  const forgetEvicted = db.prepare('UPDATE journal_numbers SET evicted = 0 WHERE tenant_id = ?');
  return {
    /**
     * Deletes the tenant's rows everywhere; answers the rows deleted per table (cascades not
     * counted). The journal is empty again, so none of it was evicted either.
     */
    deleteTenantData(tenantId: string): ResetCounts {
      forgetEvicted.run(tenantId);
      return Object.fromEntries(deletes.map(([table, statement]) => [table, statement.run(tenantId).changes])) as ResetCounts;
    },
  };
}
