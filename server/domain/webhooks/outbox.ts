import { z } from 'zod';
import { Workload } from '../../../openapi/workloads.js';
import type { Tables } from '../unit.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { stateAt } from '../../simulator/index.js';
import { isoTime } from '../clock.js';
import { webhookMessageId } from '../ids.js';
import type { RunContext, StatusItem } from '../workloads/run.js';
import { workloadView } from '../workloads/view.js';

/**
 * The outbox's write side: one delivery per status item a materialise step passed, oldest first,
 * in the caller's transaction (the one that stores the change), for a tenant whose enabled
 * webhook was set by the item's time. Each body is fixed here, so every attempt sends and signs
 * the same bytes: the workload as GET /v1/workloads/{id} showed it at the item's virtual time
 * (the row as it would have been materialised then), encoded by the Workload schema as the
 * route's serialiser does. A step that jumps over several statuses delivers each of them.
 */
export function enqueueStatusChanges(tables: Tables, row: WorkloadRow, run: RunContext, items: readonly StatusItem[]): void {
  if (items.length === 0) return;
  const hook = tables.webhooks.get(row.tenantId);
  if (!hook?.enabled) return;
  for (const item of items) {
    if (item.atMs < hook.sinceMs) continue;
    const state = stateAt(run.spec, run.interventions, item.atMs, run.timeline);
    const then: WorkloadRow = {
      ...row,
      status: item.status,
      updatedAtMs: state.updatedAtMs,
      spendUsd: state.spendUsd,
      generation: state.generation,
      materialisedToMs: item.atMs,
    };
    const type = `workload.${item.status}`;
    const id = webhookMessageId(row.id, type, item.atMs);
    const body = JSON.stringify({ type, id, created_at: isoTime(item.atMs), data: z.encode(Workload, workloadView(then, run)) });
    tables.webhooks.enqueue({ id, tenantId: row.tenantId, workloadId: row.id, type, body, createdAtMs: item.atMs, dueAtMs: item.atMs });
  }
}
