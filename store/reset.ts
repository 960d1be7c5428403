import type { Db } from './db.js';

/**
 * Every table a tenant owns rows of, by `tenant_id`. Tables keyed by `workload_id` are emptied by
 * their ON DELETE CASCADE from `workloads`. test/routes/mock/reset.test.ts fails when a table with either
 * column is covered neither here, nor by a cascade, nor in KEPT_BY_RESET: add new tables here.
 */
export const TENANT_TABLES = [
  'workloads',
  'idempotency_keys',
  'recipe_overrides',
  'budgets',
  'faults',
  'workload_rules',
  'request_journal',
  'scenario_applied',
  'assets',
  'webhooks',
  'tenant_levers',
  'reviews',
  'secrets',
  'connections',
] as const;

/** Tables with a `tenant_id` that reset leaves alone, and why. */
export const KEPT_BY_RESET: Record<string, string> = {
  api_keys: 'a key keeps naming its tenant: reset empties the tenant, it does not forget the key',
  journal_numbers: 'a journal id is never handed out twice, not even after a reset (its count of evicted rows starts again)',
};

export type ResetCounts = Record<(typeof TENANT_TABLES)[number], number>;

export function createResetStore(db: Db) {
  const deletes = TENANT_TABLES.map((table) => [table, db.prepare(`DELETE FROM ${table} WHERE tenant_id = ?`)] as const);
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
