import { customAlphabet } from 'nanoid';
import type { FastifyInstance } from 'fastify';
import type { WorkloadRow } from '../store/workloads.js';
import { notFound } from './errors.js';
import type { SimSpec } from './simulator/types.js';

/** Workload ids satisfy the SDK's `[A-Za-z0-9_-]+` check before it builds a URL. */
export const WORKLOAD_ID_PATTERN = /^wl_[A-Za-z0-9]{20}$/;
const alphanumeric = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 20);
export const newWorkloadId = () => `wl_${alphanumeric()}`;

/** Generations count from 1: the logs route takes `generation` as a positive integer. */
export const FIRST_GENERATION = 1;

export interface NewWorkload {
  id: string;
  kind: SimSpec['kind'];
  name: string | null;
  payload: Record<string, unknown>;
  spec: SimSpec;
  estimatedCostUsd: number;
}

/** Stores an admitted workload in `accepted`; call inside the admitting transaction. */
export function insertWorkload(app: FastifyInstance, tenantId: string, w: NewWorkload): void {
  app.store.workloads.insert({
    id: w.id,
    tenantId,
    kind: w.kind,
    name: w.name,
    payload: JSON.stringify(w.payload),
    spec: JSON.stringify(w.spec),
    estimatedCostUsd: w.estimatedCostUsd,
    revision: 1,
    createdAtMs: w.spec.createdAtMs,
    // Just before creation, so the timeline's first item (accepted, at creation) is due.
    materialisedToMs: w.spec.createdAtMs - 1,
    status: 'accepted',
    updatedAtMs: w.spec.createdAtMs,
    spendUsd: 0,
    generation: FIRST_GENERATION,
    settled: 0,
  });
}

export const submitResult = (id: string) => ({ id, workload_id: id, status: 'accepted', revision: 1 });

/**
 * The tenant's workload, materialised up to its virtual now, or 404: a malformed id, a missing
 * one and another tenant's all read the same. Call inside a write transaction.
 */
export function currentWorkload(app: FastifyInstance, tenantId: string, id: string): WorkloadRow {
  const row = WORKLOAD_ID_PATTERN.test(id) ? app.store.workloads.get(tenantId, id) : undefined;
  if (!row) throw notFound(`workload ${id}`);
  return app.materialiser.materialise(row, app.clock.nowMs(tenantId));
}
