import { z } from 'zod';
import { plain, plainChecks } from './plain.js';
import { dateTime } from './primitives.js';

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
const int = z.number().int();
const real = z.number();
const text = z.string().register(plainChecks, { plain: (v) => typeof v === 'string' });
const flag = z.union([z.literal(0), z.literal(1)]).meta({ type: 'integer' }).register(plainChecks, { plain: (v) => v === 0 || v === 1 });
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

const workloadRules = rows({
  seq: int, id: text, match: text, at: text, action: text, source: z.enum(['api', 'scenario']), matched: int, created_at_ms: int,
});
const workloadRuleBindings = rows({
  workload_id: text, rule_id: text, position: int, at: text, action: text, reads: int,
  state: z.enum(['pending', 'applied', 'skipped']), settled_at_ms: maybe(int), note: maybe(text),
});

const tables = z.strictObject({
  workloads: rows({
    id: text, kind: z.enum(['recipe', 'custom']), name: maybe(text), payload: text, spec: text, estimated_cost_usd: real,
    revision: int, created_at_ms: int, materialised_to_ms: int, status: text, updated_at_ms: int, spend_usd: real,
    generation: int, rl_event_count: int, rl_event_bytes: int, dropped_events: int, truncated: flag, settled: flag,
  }),
  assets: rows({
    seq: int, id: text, kind: z.enum(['upload', 'url', 'github', 'huggingface', 'connection_query']), name: text,
    state: z.enum(['importing', 'ready', 'failed', 'deleted']), revision: text, sha256: text, bytes: int.min(0),
    created_at_ms: int, ready_at_ms: maybe(int), deleted_at_ms: maybe(int), error: maybe(text),
    archive: maybe(z.enum(['tar', 'tar.gz', 'zip'])), files: maybe(text), idempotency_key: maybe(text),
    query_hash: maybe(text), export: maybe(text),
  }),
  idempotency_keys: rows({ scope: text, key: text, fingerprint: text, workload_id: maybe(text), created_at_ms: int, expires_at_ms: int }),
  recipe_overrides: rows({ recipe_id: text, available: flag, unavailable_reason: maybe(text) }),
  budgets: rows({ monthly_spend_cap_usd: real, month_to_date_usd: real }, MAX_ROWS.budgets),
  tenant_levers: rows({ review_expiry: flag, unrecoverable_error_rate: maybe(real.min(0).max(1)) }, MAX_ROWS.tenant_levers),
  reviews: rows({ token: text, valid_until_ms: int }),
  faults: rows({
    seq: int, id: text, method: maybe(text), path: text, times: int.min(1), after_count: int.min(0), seen: int.min(0),
    applied: int.min(0), action: text, source: z.enum(['api', 'scenario']), created_at_ms: int,
  }),
  request_journal: rows({
    id: int, seq: int, at_ms: int, wall_ms: int, method: text, path: text, query: text, status: maybe(int),
    request_id: text, idempotency_key: maybe(text), replayed: flag, fault: maybe(text), fault_id: maybe(text),
    body: maybe(text), body_json: flag, body_bytes: int, body_truncated: flag, duration_ms: real,
    // Optional in the shape only so that one schema reads every version (ADDED_COLUMNS).
    kind: z.enum(['api', 'control']).optional(), headers: text.optional().describe('a JSON object'), headers_truncated: flag.optional(),
  }),
  scenario_applied: rows({ entry_sha256: text, applied_at_ms: int }, MAX_ROWS.scenario_applied),
  webhooks: rows({ url: text, secret: text, enabled: flag, since_ms: int, updated_at_ms: int }, MAX_ROWS.webhooks),
  workload_interventions: rows({ seq: int, workload_id: text, at_ms: int, kind: text, args: text }),
  workload_events: rows({ seq: int, workload_id: text, event_id: text, event_type: text, payload: text, created_at_ms: int }),
  rl_events: rows({
    seq: int, workload_id: text, stage_id: text, generation: int, received_at_ms: int, event_id: text, phase: text,
    task_id: text, attempt: int, kind: text, event: text,
  }),
  workload_logs: rows({ seq: int, workload_id: text, stage_id: text, generation: int, at_ms: int, line: text }),
  workload_log_attempts: rows({ workload_id: text, stage_id: text, generation: int, bytes: int, truncated: flag }),
  grading_plans: rows({ workload_id: text, revision: int, plan_sha256: text, simulated: flag, created_at_ms: int }),
  grading_receipts: rows({ workload_id: text, revision: int, attempt_id: text, created_at_ms: int, receipt: text }),
  workload_assets: rows({ workload_id: text, asset_id: text }),
  asset_contents: rows({ asset_id: text, part: int, data: z.base64().describe('the part\'s bytes, base64') }),
  webhook_deliveries: rows({
    seq: int, id: text, workload_id: text, type: text, body: text, created_at_ms: int,
    state: z.enum(['pending', 'delivered', 'failed']), due_at_ms: maybe(int), tries: int, attempts: int, last_error: maybe(text),
  }),
  // Secrets are names and versions only: their values are never stored, so never exported.
  secrets: rows({ seq: int, id: text, name: text, version: int.min(1), created_at_ms: int }),
  connections: rows({
    seq: int, id: text, name: text, kind: z.enum(['postgres', 'neon', 'supabase', 'wandb']), secret_id: text,
    secret_version: int.min(1), scope: z.enum(['read', 'write', 'readwrite']), region: maybe(text), branch: maybe(text),
    entity: maybe(text), project: maybe(text), live_mode: flag, egress_hosts: text, verified_at_ms: int, created_at_ms: int,
    created_by: text,
  }),
  workload_connections: rows({ workload_id: text, connection_id: text }),
  // Optional in the shape only so that one schema reads every version (ADDED_TABLES).
  workload_rules: workloadRules.optional(),
  workload_rule_bindings: workloadRuleBindings.optional(),
  webhook_attempts: rows({
    delivery_seq: int, attempt: int, url: text, wall_ms: int, at_ms: int, status_code: maybe(int), error: maybe(text),
    latency_ms: real, next_retry_at_ms: maybe(int), fault_id: maybe(text),
  }),
});

type TableName = keyof typeof tables.shape;
/** One row of a table, as a restore reading the document row by row validates it. */
const tableRows = { ...tables.shape, workload_rules: workloadRules, workload_rule_bindings: workloadRuleBindings };
export const snapshotRow = <T extends TableName>(table: T) => tableRows[table].element;
/** Each table's columns in the format's order: the order of the values of a row as a restore holds it. */
export const SNAPSHOT_COLUMNS = Object.fromEntries(Object.entries(tableRows).map(([table, rows]) => [table, Object.keys(rows.element.shape)])) as
  unknown as Record<TableName, readonly string[]>;

export const SnapshotTenant = z
  .strictObject({
    clock: z.strictObject({
      mode: z.enum(['realtime', 'manual']),
      scale: z.number().positive().max(1_000_000).describe('virtual seconds per wall second in realtime mode'),
      now_ms: int.min(0).describe('the virtual time the snapshot was taken at; a restored clock resumes from it'),
    }),
    id: text.nullable().optional()
      .describe('the tenant the snapshot was taken from (version 2 on, where it is required; null: restore keeping the ids, as version 1 did)'),
    cursor_key: z.string().regex(/^[0-9a-f]{64}$/).nullable()
      .describe('the key the tenant\'s cursors are signed with (null: a tenant older than these keys, whose cursors the server signed)'),
    tables,
  })
  .describe('every column of every table the tenant owns, but its id; BLOBs as base64');

export const Snapshot = z
  .strictObject({
    format: z.literal(SNAPSHOT_FORMAT),
    version: int.min(1).refine((v) => v <= SNAPSHOT_VERSION, `is newer than this server reads (${SNAPSHOT_VERSION}): restore it with a newer nodus-mock`),
    created_at: dateTime,
    mock_version: text.describe('the nodus-mock version that wrote it'),
    tenant: SnapshotTenant,
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
  .meta({ id: 'MockSnapshot' });

export const SnapshotRestored = z
  .object({
    restored: z.literal(true),
    rows: z.record(z.string(), z.number().int()).describe('rows restored per table'),
  })
  .meta({ id: 'MockSnapshotRestored' });

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
const added = new Map<string, AddedColumn[]>();
for (const [version, byTable] of Object.entries(ADDED_COLUMNS)) {
  for (const [table, columns] of Object.entries(byTable)) {
    for (const [column, value] of Object.entries(columns)) {
      const position = SNAPSHOT_COLUMNS[table as TableName].indexOf(column);
      added.set(table, [...(added.get(table) ?? []), { column, position, version: Number(version), value }]);
    }
  }
}
/**
 * The columns versions added to the table: a column is required from its version on and absent
 * before, and an older row holds its value there (what reproduces the older behaviour).
 */
export const addedColumns = (table: string): readonly AddedColumn[] => added.get(table) ?? [];

/** docs/snapshot.schema.json: the format as JSON Schema (draft 2020-12), for tools outside this server. */
export function snapshotJsonSchema(): string {
  const schema = z.toJSONSchema(Snapshot, { target: 'draft-2020-12', unrepresentable: 'any' });
  return `${JSON.stringify({ title: 'nodus-mock tenant snapshot', ...schema }, null, 2)}\n`;
}
