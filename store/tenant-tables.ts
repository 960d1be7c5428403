/**
 * How a table's rows belong to a tenant: by their own `tenant_id`, or through the row of another
 * table they name (`column` = `parent.key`).
 */
export type RowOwner = { by: 'tenant' } | { by: 'parent'; column: string; parent: string; key: string };

interface TenantTable {
  /** `self`: the tenant's own row, by its `id`. */
  owner: RowOwner | { by: 'self' };
  /**
   * Whether a snapshot carries the rows, or why not. Rows carried go out whole, every column but
   * `tenant_id` (the target's), ids and sequence numbers included: they are on the wire, in
   * cursors and in webhook bodies. A table of tenant secret values is left out: their values are
   * never exported.
   */
  snapshot: 'carried' | { leftOut: string };
  /**
   * What POST /_mock/reset does to the rows: deletes them by `tenant_id` (counted in its answer),
   * leaves them to an ON DELETE CASCADE from a table it deletes, or keeps them, and why.
   */
  reset: 'deleted' | 'cascaded' | { kept: string };
  /**
   * The tenant cache's entry the rows feed (store/tenant-cache.ts): its kind, and the columns
   * naming one entry among the tenant's many.
   */
  cached?: { kind: string; by?: readonly string[] };
}

const tenantRows = { by: 'tenant' } as const;
const ofWorkload = { by: 'parent', column: 'workload_id', parent: 'workloads', key: 'id' } as const;

/**
 * Every table a tenant owns rows of, and what reset, snapshots and the tenant cache do with it.
 * In the order a restore inserts them (parents first), which is the order of a document's tables
 * and of reset's answer. test/store/tenant-tables.test.ts fails when a table of the schema with a
 * `tenant_id`, or owned through a parent, is missing here: add new tables here.
 */
export const TENANT_TABLES = {
  tenants: {
    owner: { by: 'self' },
    snapshot: { leftOut: 'the document\'s head carries what the row holds: the clock and the cursor key' },
    reset: { kept: 'the tenant stays; reset sets its clock back to the configured defaults' },
    cached: { kind: 'clock' },
  },
  api_keys: {
    owner: tenantRows,
    snapshot: { leftOut: 'keys stay the target tenant\'s own: a restore replaces state, not credentials' },
    reset: { kept: 'a key keeps naming its tenant: reset empties the tenant, it does not forget the key' },
  },
  journal_numbers: {
    owner: tenantRows,
    snapshot: { leftOut: 'the target\'s journal goes on numbering after both its own last id and the document\'s' },
    reset: { kept: 'a journal id is never handed out twice, not even after a reset (its count of evicted rows starts again)' },
  },
  workloads: { owner: tenantRows, snapshot: 'carried', reset: 'deleted' },
  assets: { owner: tenantRows, snapshot: 'carried', reset: 'deleted' },
  idempotency_keys: { owner: tenantRows, snapshot: 'carried', reset: 'deleted', cached: { kind: 'idempotency', by: ['scope', 'key'] } },
  recipe_overrides: { owner: tenantRows, snapshot: 'carried', reset: 'deleted', cached: { kind: 'overrides' } },
  budgets: { owner: tenantRows, snapshot: 'carried', reset: 'deleted', cached: { kind: 'budget' } },
  tenant_levers: { owner: tenantRows, snapshot: 'carried', reset: 'deleted', cached: { kind: 'levers' } },
  reviews: { owner: tenantRows, snapshot: 'carried', reset: 'deleted' },
  faults: { owner: tenantRows, snapshot: 'carried', reset: 'deleted', cached: { kind: 'faults' } },
  request_journal: { owner: tenantRows, snapshot: 'carried', reset: 'deleted' },
  scenario_applied: { owner: tenantRows, snapshot: 'carried', reset: 'deleted' },
  webhooks: { owner: tenantRows, snapshot: 'carried', reset: 'deleted' },
  workload_interventions: { owner: ofWorkload, snapshot: 'carried', reset: 'cascaded' },
  workload_events: { owner: ofWorkload, snapshot: 'carried', reset: 'cascaded' },
  rl_events: { owner: ofWorkload, snapshot: 'carried', reset: 'cascaded' },
  workload_logs: { owner: ofWorkload, snapshot: 'carried', reset: 'cascaded' },
  workload_log_attempts: { owner: ofWorkload, snapshot: 'carried', reset: 'cascaded' },
  grading_plans: { owner: ofWorkload, snapshot: 'carried', reset: 'cascaded' },
  grading_receipts: { owner: ofWorkload, snapshot: 'carried', reset: 'cascaded' },
  workload_assets: { owner: ofWorkload, snapshot: 'carried', reset: 'cascaded' },
  asset_contents: { owner: { by: 'parent', column: 'asset_id', parent: 'assets', key: 'id' }, snapshot: 'carried', reset: 'cascaded' },
  webhook_deliveries: { owner: tenantRows, snapshot: 'carried', reset: 'cascaded' },
  webhook_attempts: { owner: { by: 'parent', column: 'delivery_seq', parent: 'webhook_deliveries', key: 'seq' }, snapshot: 'carried', reset: 'cascaded' },
  secrets: { owner: tenantRows, snapshot: 'carried', reset: 'deleted' },
  connections: { owner: tenantRows, snapshot: 'carried', reset: 'deleted' },
  workload_connections: { owner: ofWorkload, snapshot: 'carried', reset: 'cascaded' },
  workload_rules: { owner: tenantRows, snapshot: 'carried', reset: 'deleted', cached: { kind: 'workload_rules' } },
  workload_rule_bindings: { owner: tenantRows, snapshot: 'carried', reset: 'cascaded' },
} as const satisfies Record<string, TenantTable>;

type Tables = typeof TENANT_TABLES;
export type TenantTableName = keyof Tables;
/** The tables whose entry's `field` is `value`. */
export type TablesWhere<F extends keyof TenantTable, V> = { [T in TenantTableName]: Tables[T] extends Record<F, V> ? T : never }[TenantTableName];
export type CacheKind = { [T in TenantTableName]: Tables[T] extends { cached: { kind: infer K } } ? K : never }[TenantTableName];

/** The registry's entries in its order, for the modules that read it. */
export const tenantTables = Object.entries(TENANT_TABLES) as readonly [TenantTableName, TenantTable][];
