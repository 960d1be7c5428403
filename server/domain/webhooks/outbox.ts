import { createHash } from 'node:crypto';
import { z } from 'zod';
import { Workload } from '../../../openapi/workloads.js';
import type { Store } from '../../../store/index.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { stateAt } from '../../simulator/index.js';
import { isoTime } from '../clock.js';
import type { RunContext, StatusItem } from '../workloads/materialise.js';
import { workloadView } from '../workloads/view.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Standard Webhooks message ids: `msg_` and 24 base-62 characters (143 bits), derived from the
 * status change they announce (a workload id is unique on the server, and a workload passes a
 * status once at a given virtual time), not drawn at random: a restored tenant announces the
 * changes its runs go on to make under the same ids as the original would (docs/snapshots.md).
 */
function messageId(workloadId: string, type: string, atMs: number): string {
  let n = BigInt(`0x${createHash('sha256').update(`${workloadId}\n${type}\n${atMs}`).digest('hex')}`);
  let id = '';
  for (let i = 0; i < 24; i++, n /= 62n) id += BASE62[Number(n % 62n)];
  return `msg_${id}`;
}

/**
 * The outbox's write side: one delivery per status item a materialise step passed, oldest first,
 * in the caller's transaction (the one that stores the change), for a tenant whose enabled
 * webhook was set by the item's time. Each body is fixed here, so every attempt sends and signs
 * the same bytes: the workload as GET /v1/workloads/{id} showed it at the item's virtual time
 * (the row as it would have been materialised then), encoded by the Workload schema as the
 * route's serialiser does. A step that jumps over several statuses delivers each of them.
 */
export function enqueueStatusChanges(store: Store, row: WorkloadRow, run: RunContext, items: readonly StatusItem[]): void {
  if (items.length === 0) return;
  const hook = store.webhooks.get(row.tenantId);
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
    const id = messageId(row.id, type, item.atMs);
    const body = JSON.stringify({ type, id, created_at: isoTime(item.atMs), data: z.encode(Workload, workloadView(then, run)) });
    store.webhooks.enqueue({ id, tenantId: row.tenantId, workloadId: row.id, type, body, createdAtMs: item.atMs, dueAtMs: item.atMs });
  }
}
