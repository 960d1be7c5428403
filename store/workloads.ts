import type { Db } from './db.js';

export interface WorkloadRow {
  id: string;
  tenantId: string;
  kind: 'recipe' | 'custom';
  name: string | null;
  /** JSON of the WorkloadPayload as admitted. */
  payload: string;
  /** JSON of the SimSpec. */
  spec: string;
  estimatedCostUsd: number;
  revision: number;
  createdAtMs: number;
  materialisedToMs: number;
  status: string;
  updatedAtMs: number;
  spendUsd: number;
  generation: number;
  settled: number;
}

/** What materialisation changes on the row. */
type WorkloadState = Pick<WorkloadRow, 'status' | 'updatedAtMs' | 'spendUsd' | 'generation' | 'materialisedToMs' | 'settled'>;

const COLUMNS = `id, tenant_id AS tenantId, kind, name, payload, spec, estimated_cost_usd AS estimatedCostUsd,
  revision, created_at_ms AS createdAtMs, materialised_to_ms AS materialisedToMs, status,
  updated_at_ms AS updatedAtMs, spend_usd AS spendUsd, generation, settled`;

export function createWorkloadStore(db: Db) {
  // Positional parameters: binding fifteen named ones from an object cost a launch measurably.
  const insert = db.prepare(
    `INSERT INTO workloads (id, tenant_id, kind, name, payload, spec, estimated_cost_usd, revision,
       created_at_ms, materialised_to_ms, status, updated_at_ms, spend_usd, generation, settled)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const get = db.prepare<[string, string], WorkloadRow>(`SELECT ${COLUMNS} FROM workloads WHERE id = ? AND tenant_id = ?`);
  const unsettled = db.prepare<[string], WorkloadRow>(`SELECT ${COLUMNS} FROM workloads WHERE tenant_id = ? AND settled = 0`);
  const anyUnsettled = db.prepare<[string], { one: 1 }>('SELECT 1 AS one FROM workloads WHERE tenant_id = ? AND settled = 0 LIMIT 1');
  const unsettledAfter = db.prepare<[string, number, number], WorkloadRow & { position: number }>(
    `SELECT rowid AS position, ${COLUMNS} FROM workloads WHERE tenant_id = ? AND settled = 0 AND rowid > ? ORDER BY rowid LIMIT ?`,
  );
  const saveState = db.prepare(
    `UPDATE workloads SET status = @status, updated_at_ms = @updatedAtMs, spend_usd = @spendUsd,
       generation = @generation, materialised_to_ms = @materialisedToMs, settled = @settled WHERE id = @id`,
  );
  return {
    insert(r: WorkloadRow): void {
      insert.run(r.id, r.tenantId, r.kind, r.name, r.payload, r.spec, r.estimatedCostUsd, r.revision,
        r.createdAtMs, r.materialisedToMs, r.status, r.updatedAtMs, r.spendUsd, r.generation, r.settled);
    },
    /** Another tenant's workload is indistinguishable from a missing one. */
    get(tenantId: string, id: string): WorkloadRow | undefined {
      return get.get(id, tenantId);
    },
    /** Workloads that may still have something to materialise. */
    unsettled(tenantId: string): WorkloadRow[] {
      return unsettled.all(tenantId);
    },
    /** Whether the tenant has a workload unsettled() would answer, without reading the rows. */
    hasUnsettled(tenantId: string): boolean {
      return anyUnsettled.get(tenantId) !== undefined;
    },
    /**
     * A page of unsettled(), in the order rows were stored: each row with its position, the
     * `after` of the next page. Pages that follow one another see rows stored between them.
     */
    unsettledAfter(tenantId: string, after: number, limit: number): { position: number; row: WorkloadRow }[] {
      return unsettledAfter.all(tenantId, after, limit).map(({ position, ...row }) => ({ position, row }));
    },
    saveState(id: string, state: WorkloadState): void {
      saveState.run({ id, ...state });
    },
    /** Newest first; `statuses` empty means all. */
    list(tenantId: string, statuses: readonly string[], limit: number, offset: number): WorkloadRow[] {
      const filter = statuses.length ? `AND status IN (${statuses.map(() => '?').join(', ')})` : '';
      return db
        .prepare<unknown[], WorkloadRow>(
          `SELECT ${COLUMNS} FROM workloads WHERE tenant_id = ? ${filter} ORDER BY created_at_ms DESC, id DESC LIMIT ? OFFSET ?`,
        )
        .all(tenantId, ...statuses, limit, offset);
    },
  };
}
