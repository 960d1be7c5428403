import type { Db } from './db.js';

/**
 * Workload statuses that hold compute (ComputeItem states starting, running, recovering and
 * stopping); frozen is paused and lists under history with the ended ones.
 */
export const RUNNING_STATUSES = ['accepted', 'planning', 'reserving', 'provisioning', 'running', 'recovering', 'freezing'] as const;

/** One item of GET /v1/compute: a workload alone, or a sweep's runs together, with their counts. */
export interface ComputeRow {
  /** The item id: the workload's, or sweep_ and the sweep id. */
  key: string;
  sweepId: string | null;
  /** The first run's id and creation (the sweep's, for a sweep). */
  firstId: string;
  createdAtMs: number;
  size: number;
  /** Runs in RUNNING_STATUSES. */
  running: number;
  /** A sweep's runs per stored status, as JSON (empty for a workload alone). */
  statuses: string;
}

/** Where the previous page stopped, in its order (created_at_ms, key, both descending). */
export interface ComputeAfter {
  createdAtMs: number;
  key: string;
}

const RUNNING = `status IN (${RUNNING_STATUSES.map((s) => `'${s}'`).join(', ')})`;
const SWEEP = `json_extract(payload, '$.sweep_id')`;
const AFTER = '(@afterMs IS NULL OR createdAtMs < @afterMs OR (createdAtMs = @afterMs AND key < @afterKey))';

/**
 * The grouped reads behind GET /v1/compute and its sweep groups. A sweep is the runs whose
 * admitted payload carries the same sweep_id; its place in the order is its first run's creation.
 */
export function createComputeStore(db: Db) {
  const items = `
    WITH runs AS (
      SELECT id, created_at_ms, status, ${SWEEP} AS sweep_id FROM workloads WHERE tenant_id = @tenantId
    )
    SELECT coalesce('sweep_' || r.sweep_id, r.id) AS key, r.sweep_id AS sweepId, min(r.created_at_ms) AS createdAtMs, count(*) AS size,
      sum(r.${RUNNING}) AS running, r.id AS firstId, '' AS statuses
    FROM runs r GROUP BY key`;
  const page = db.prepare<{ tenantId: string; running: number; afterMs: number | null; afterKey: string; limit: number }, ComputeRow>(
    `SELECT * FROM (${items}) WHERE (running > 0) = @running AND ${AFTER} ORDER BY createdAtMs DESC, key DESC LIMIT @limit`,
  );
  const one = db.prepare<{ tenantId: string; key: string }, ComputeRow>(`SELECT * FROM (${items}) WHERE key = @key`);
  const first = db.prepare<[string, string], { id: string }>(
    `SELECT id FROM workloads WHERE tenant_id = ? AND ${SWEEP} = ? ORDER BY created_at_ms, id LIMIT 1`,
  );
  const statuses = db.prepare<[string, string], { status: string; n: number }>(
    `SELECT status, count(*) AS n FROM workloads WHERE tenant_id = ? AND ${SWEEP} = ? GROUP BY status`,
  );
  const members = db.prepare<{ tenantId: string; sweepId: string; afterMs: number | null; afterKey: string; limit: number }, { key: string; createdAtMs: number }>(
    `SELECT id AS key, created_at_ms AS createdAtMs FROM workloads WHERE tenant_id = @tenantId AND ${SWEEP} = @sweepId
       AND (@afterMs IS NULL OR created_at_ms < @afterMs OR (created_at_ms = @afterMs AND id < @afterKey))
     ORDER BY created_at_ms DESC, id DESC LIMIT @limit`,
  );
  const lastUpdate = db.prepare<[string, string], { ms: number }>(`SELECT max(updated_at_ms) AS ms FROM workloads WHERE tenant_id = ? AND ${SWEEP} = ?`);
  const runningRuns = db.prepare<[string], { n: number }>(`SELECT count(*) AS n FROM workloads WHERE tenant_id = ? AND ${RUNNING}`);

  /** A sweep's first run and its runs per status, which a row of the grouped query cannot carry. */
  const complete = (tenantId: string, row: ComputeRow): ComputeRow => {
    if (row.sweepId === null) return row;
    const counts = Object.fromEntries(statuses.all(tenantId, row.sweepId).map((s) => [s.status, s.n]));
    return { ...row, firstId: first.get(tenantId, row.sweepId)!.id, statuses: JSON.stringify(counts) };
  };
  return {
    /** One page of items, running (holding compute) or history, newest first after `after`. */
    page(tenantId: string, running: boolean, after: ComputeAfter | null, limit: number): ComputeRow[] {
      return page
        .all({ tenantId, running: running ? 1 : 0, afterMs: after?.createdAtMs ?? null, afterKey: after?.key ?? '', limit })
        .map((row) => complete(tenantId, row));
    },
    /** The sweep's item, or undefined when no run of the tenant carries that sweep id. */
    sweep(tenantId: string, sweepId: string): ComputeRow | undefined {
      const row = one.get({ tenantId, key: `sweep_${sweepId}` });
      return row && row.sweepId === sweepId ? complete(tenantId, row) : undefined;
    },
    /** A page of the sweep's runs (their ids), newest first after `after`. */
    members(tenantId: string, sweepId: string, after: ComputeAfter | null, limit: number): { key: string; createdAtMs: number }[] {
      return members.all({ tenantId, sweepId, afterMs: after?.createdAtMs ?? null, afterKey: after?.key ?? '', limit });
    },
    /** When the sweep's runs last changed status: its end, once none runs. */
    lastUpdate(tenantId: string, sweepId: string): number {
      return lastUpdate.get(tenantId, sweepId)!.ms;
    },
    /** Runs holding compute, whatever a page's filters. */
    runningRuns(tenantId: string): number {
      return runningRuns.get(tenantId)!.n;
    },
  };
}
