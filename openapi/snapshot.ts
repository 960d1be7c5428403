import { z } from 'zod';
import { plain, plainChecks } from './plain.js';
import { dateTime } from './primitives.js';
import { built, lazy, once } from './lazy.js';

/**
 * A tenant's whole state as one document (GET and PUT /_mock/snapshot, docs/snapshots.md). The
 * tables are the store's own, row for row, every column but the tenant's id:
 * test/store/snapshot.test.ts fails when a column here and in the database differ.
 */

export const SNAPSHOT_FORMAT = 'nodus-mock.snapshot';
/**
 * The newest version this server writes and reads; every older one stays readable
 * (`upgradeSnapshot`). 2 added `tenant.id`; 3 the workload rules and their bindings; 4 the
 * journal's kind and headers.
 */
export const SNAPSHOT_VERSION = 4;

/** Tables a version added, by the version: an older document has none of their rows. */
const ADDED_TABLES = { 3: ['workload_rules', 'workload_rule_bindings'] } as const;
/**
 * Columns a version added to a table, by the version, each with the value that reproduces an
 * older document's rows: before 4, every journal row was a /v1 request with no header kept.
 */
const ADDED_COLUMNS: Record<number, Record<string, Record<string, string | number>>> = {
  4: { request_journal: { kind: 'api', headers: '{}', headers_truncated: 0 } },
};

// A column's type, and what a restore reading rows takes without parsing them (openapi/plain.ts).
const int = lazy(() => z.number().int());
const real = lazy(() => z.number());
const text = lazy(() => z.string().register(plainChecks, { plain: (v) => typeof v === 'string' }));
const flag = lazy(() => z.union([z.literal(0), z.literal(1)]).meta({ type: 'integer' }).register(plainChecks, { plain: (v) => v === 0 || v === 1 }));
const maybe = <T extends z.ZodType>(schema: T) => {
  const inner = plain(schema);
  const nullable = schema.nullable();
  plainChecks.add(nullable, { plain: (v) => v === null || inner(v) });
  return nullable;
};
const rows = <T extends z.ZodRawShape>(shape: T, max?: number) => {
  const list = z.array(z.strictObject(shape));
  return max === undefined ? list : list.max(max);
};

/** Tables of at most one row: a tenant has one budget, one set of levers, one scenario, one webhook. */
export const MAX_ROWS = { budgets: 1, tenant_levers: 1, scenario_applied: 1, webhooks: 1 } as const;

const workloadRules = lazy(() => rows({
  seq: built(int), id: built(text), match: built(text), at: built(text), action: built(text), source: z.enum(['api', 'scenario']), matched: built(int), created_at_ms: built(int),
}));
const workloadRuleBindings = lazy(() => rows({
  workload_id: built(text), rule_id: built(text), position: built(int), at: built(text), action: built(text), reads: built(int),
  state: z.enum(['pending', 'applied', 'skipped']), settled_at_ms: maybe(built(int)), note: maybe(built(text)),
}));

const tables = lazy(() => z.strictObject({
  workloads: rows({
    id: built(text), kind: z.enum(['recipe', 'custom']), name: maybe(built(text)), payload: built(text), spec: built(text), estimated_cost_usd: built(real),
    revision: built(int), created_at_ms: built(int), materialised_to_ms: built(int), status: built(text), updated_at_ms: built(int), spend_usd: built(real),
    generation: built(int), rl_event_count: built(int), rl_event_bytes: built(int), dropped_events: built(int), truncated: built(flag), settled: built(flag),
  }),
  assets: rows({
    seq: built(int), id: built(text), kind: z.enum(['upload', 'url', 'github', 'huggingface', 'connection_query']), name: built(text),
    state: z.enum(['importing', 'ready', 'failed', 'deleted']), revision: built(text), sha256: built(text), bytes: built(int).min(0),
    created_at_ms: built(int), ready_at_ms: maybe(built(int)), deleted_at_ms: maybe(built(int)), error: maybe(built(text)),
    archive: maybe(z.enum(['tar', 'tar.gz', 'zip'])), files: maybe(built(text)), idempotency_key: maybe(built(text)),
    query_hash: maybe(built(text)), export: maybe(built(text)),
  }),
  idempotency_keys: rows({ scope: built(text), key: built(text), fingerprint: built(text), workload_id: maybe(built(text)), created_at_ms: built(int), expires_at_ms: built(int) }),
  recipe_overrides: rows({ recipe_id: built(text), available: built(flag), unavailable_reason: maybe(built(text)) }),
  budgets: rows({ monthly_spend_cap_usd: built(real), month_to_date_usd: built(real) }, MAX_ROWS.budgets),
  tenant_levers: rows({ review_expiry: built(flag), unrecoverable_error_rate: maybe(built(real).min(0).max(1)) }, MAX_ROWS.tenant_levers),
  reviews: rows({ token: built(text), valid_until_ms: built(int) }),
  faults: rows({
    seq: built(int), id: built(text), method: maybe(built(text)), path: built(text), times: built(int).min(1), after_count: built(int).min(0), seen: built(int).min(0),
    applied: built(int).min(0), action: built(text), source: z.enum(['api', 'scenario']), created_at_ms: built(int),
  }),
  request_journal: rows({
    id: built(int), seq: built(int), at_ms: built(int), wall_ms: built(int), method: built(text), path: built(text), query: built(text), status: maybe(built(int)),
    request_id: built(text), idempotency_key: maybe(built(text)), replayed: built(flag), fault: maybe(built(text)), fault_id: maybe(built(text)),
    body: maybe(built(text)), body_json: built(flag), body_bytes: built(int), body_truncated: built(flag), duration_ms: built(real),
    // Optional in the shape only so that one schema reads every version (ADDED_COLUMNS).
    kind: z.enum(['api', 'control']).optional(), headers: built(text).optional().describe('a JSON object'), headers_truncated: built(flag).optional(),
  }),
  scenario_applied: rows({ entry_sha256: built(text), applied_at_ms: built(int) }, MAX_ROWS.scenario_applied),
  webhooks: rows({ url: built(text), secret: built(text), enabled: built(flag), since_ms: built(int), updated_at_ms: built(int) }, MAX_ROWS.webhooks),
  workload_interventions: rows({ seq: built(int), workload_id: built(text), at_ms: built(int), kind: built(text), args: built(text) }),
  workload_events: rows({ seq: built(int), workload_id: built(text), event_id: built(text), event_type: built(text), payload: built(text), created_at_ms: built(int) }),
  rl_events: rows({
    seq: built(int), workload_id: built(text), stage_id: built(text), generation: built(int), received_at_ms: built(int), event_id: built(text), phase: built(text),
    task_id: built(text), attempt: built(int), kind: built(text), event: built(text),
  }),
  workload_logs: rows({ seq: built(int), workload_id: built(text), stage_id: built(text), generation: built(int), at_ms: built(int), line: built(text) }),
  workload_log_attempts: rows({ workload_id: built(text), stage_id: built(text), generation: built(int), bytes: built(int), truncated: built(flag) }),
  grading_plans: rows({ workload_id: built(text), revision: built(int), plan_sha256: built(text), simulated: built(flag), created_at_ms: built(int) }),
  grading_receipts: rows({ workload_id: built(text), revision: built(int), attempt_id: built(text), created_at_ms: built(int), receipt: built(text) }),
  workload_assets: rows({ workload_id: built(text), asset_id: built(text) }),
  asset_contents: rows({ asset_id: built(text), part: built(int), data: z.base64().describe('the part\'s bytes, base64') }),
  webhook_deliveries: rows({
    seq: built(int), id: built(text), workload_id: built(text), type: built(text), body: built(text), created_at_ms: built(int),
    state: z.enum(['pending', 'delivered', 'failed']), due_at_ms: maybe(built(int)), tries: built(int), attempts: built(int), last_error: maybe(built(text)),
  }),
  // Secrets are names and versions only: their values are never stored, so never exported.
  secrets: rows({ seq: built(int), id: built(text), name: built(text), version: built(int).min(1), created_at_ms: built(int) }),
  connections: rows({
    seq: built(int), id: built(text), name: built(text), kind: z.enum(['postgres', 'neon', 'supabase', 'wandb']), secret_id: built(text),
    secret_version: built(int).min(1), scope: z.enum(['read', 'write', 'readwrite']), region: maybe(built(text)), branch: maybe(built(text)),
    entity: maybe(built(text)), project: maybe(built(text)), live_mode: built(flag), egress_hosts: built(text), verified_at_ms: built(int), created_at_ms: built(int),
    created_by: built(text),
  }),
  workload_connections: rows({ workload_id: built(text), connection_id: built(text) }),
  // Optional in the shape only so that one schema reads every version (ADDED_TABLES).
  workload_rules: built(workloadRules).optional(),
  workload_rule_bindings: built(workloadRuleBindings).optional(),
  webhook_attempts: rows({
    delivery_seq: built(int), attempt: built(int), url: built(text), wall_ms: built(int), at_ms: built(int), status_code: maybe(built(int)), error: maybe(built(text)),
    latency_ms: built(real), next_retry_at_ms: maybe(built(int)), fault_id: maybe(built(text)),
  }),
}));

type TableName = keyof typeof tables.shape;
/** One row of a table, as a restore reading the document row by row validates it. */
const tableRows = once(() => ({ ...built(tables).shape, workload_rules: built(workloadRules), workload_rule_bindings: built(workloadRuleBindings) }));
export const snapshotRow = <T extends TableName>(table: T) => tableRows()[table].element;
/** Each table's columns in the format's order: the order of the values of a row as a restore holds it. */
export const snapshotColumns = once(() => Object.fromEntries(Object.entries(tableRows()).map(([table, rows]) => [table, Object.keys(rows.element.shape)])) as
  unknown as Record<TableName, readonly string[]>);

export const SnapshotTenant = lazy(() => z
  .strictObject({
    clock: z.strictObject({
      mode: z.enum(['realtime', 'manual']),
      scale: z.number().positive().max(1_000_000).describe('virtual seconds per wall second in realtime mode'),
      now_ms: built(int).min(0).describe('the virtual time the snapshot was taken at; a restored clock resumes from it'),
    }),
    id: built(text).nullable().optional()
      .describe('the tenant the snapshot was taken from (version 2 on, where it is required; null: restore keeping the ids, as version 1 did)'),
    cursor_key: z.string().regex(/^[0-9a-f]{64}$/).nullable()
      .describe('the key the tenant\'s cursors are signed with (null: a tenant older than these keys, whose cursors the server signed)'),
    tables: built(tables),
  })
  .describe('every column of every table the tenant owns, but its id; BLOBs as base64'));

export const Snapshot = lazy(() => z
  .strictObject({
    format: z.literal(SNAPSHOT_FORMAT),
    version: built(int).min(1).refine((v) => v <= SNAPSHOT_VERSION, `is newer than this server reads (${SNAPSHOT_VERSION}): restore it with a newer nodus-mock`),
    created_at: built(dateTime),
    mock_version: built(text).describe('the nodus-mock version that wrote it'),
    tenant: built(SnapshotTenant),
  })
  .superRefine((doc, ctx) => {
    // Optional in the shape only so that one schema reads every version: each says whether it has it.
    const has = doc.tenant?.id !== undefined;
    if (has !== doc.version >= 2) {
      ctx.addIssue({ code: 'custom', path: ['tenant', 'id'], message: has ? `is not in version ${doc.version}` : `is required from version 2 on` });
    }
    for (const [version, added] of Object.entries(ADDED_TABLES)) {
      for (const table of added) {
        const present = doc.tenant?.tables?.[table] !== undefined;
        if (present !== doc.version >= Number(version)) {
          ctx.addIssue({ code: 'custom', path: ['tenant', 'tables', table], message: present ? `is not in version ${doc.version}` : `is required from version ${version} on` });
        }
      }
    }
  })
  .meta({ id: 'MockSnapshot' }));

export const SnapshotRestored = lazy(() => z
  .object({
    restored: z.literal(true),
    rows: z.record(z.string(), z.number().int()).describe('rows restored per table'),
  })
  .meta({ id: 'MockSnapshotRestored' }));

export type SnapshotDocument = z.output<typeof Snapshot>;
/** A document of the newest version, as the restore takes it. */
export type CurrentSnapshot = SnapshotDocument & { version: typeof SNAPSHOT_VERSION; tenant: { id: string | null } };

/**
 * An older document as the newest version, each version's gap filled with what reproduces the
 * older behaviour (docs/snapshots.md, Versions): version 1 had no `tenant.id`, and restored
 * keeping every id, which is what a null id asks for; before version 3 a tenant had no workload rules.
 */
export function upgradeSnapshot(doc: SnapshotDocument): CurrentSnapshot {
  const { tables } = doc.tenant;
  return {
    ...doc,
    version: SNAPSHOT_VERSION,
    tenant: { ...doc.tenant, id: doc.tenant.id ?? null, tables: { ...tables, workload_rules: tables.workload_rules ?? [], workload_rule_bindings: tables.workload_rule_bindings ?? [] } },
  };
}

/** A column a version added to a table: where it is among the table's values, and what an older row holds there. */
export interface AddedColumn {
  column: string;
  position: number;
  version: number;
  value: string | number;
}
const added = once(() => {
  const byTable = new Map<string, AddedColumn[]>();
  for (const [version, tables] of Object.entries(ADDED_COLUMNS)) {
    for (const [table, columns] of Object.entries(tables)) {
      for (const [column, value] of Object.entries(columns)) {
        const position = snapshotColumns()[table as TableName].indexOf(column);
        byTable.set(table, [...(byTable.get(table) ?? []), { column, position, version: Number(version), value }]);
      }
    }
  }
  return byTable;
});
/**
 * The columns versions added to the table: a column is required from its version on and absent
 * before, and an older row holds its value there (what reproduces the older behaviour).
 */
export const addedColumns = (table: string): readonly AddedColumn[] => added().get(table) ?? [];

/** docs/snapshot.schema.json: the format as JSON Schema (draft 2020-12), for tools outside this server. */
export function snapshotJsonSchema(): string {
  const schema = z.toJSONSchema(built(Snapshot), { target: 'draft-2020-12', unrepresentable: 'any' });
  return `${JSON.stringify({ title: 'nodus-mock tenant snapshot', ...schema }, null, 2)}\n`;
}
