import type { SubmitResult } from '../../../openapi/workload-payload.js';
import { FIRST_GENERATION, type SimSpec } from '../../simulator/types.js';
import type { TenantUnit } from '../unit-of-work.js';
import { bindRules } from './rules.js';

export interface NewWorkload {
  id: string;
  kind: SimSpec['kind'];
  /** What a workload rule's `match.kind` names: a recipe launch, a POST /v1/workloads, a catalog example run. */
  origin: 'recipe' | 'custom' | 'example';
  name: string | null;
  payload: Record<string, unknown>;
  spec: SimSpec;
  estimatedCostUsd: number;
}

/** Stores an admitted workload in `accepted`; call inside the admitting transaction. */
export function insertWorkload(unit: TenantUnit, w: NewWorkload): void {
  unit.tables.workloads.insert({
    id: w.id,
    tenantId: unit.tenantId,
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
  bindRules(unit, w);
}

/** The admission's answer, of the wire's shape (openapi/workloads.ts), which its encoder writes field by field. */
export const submitResult = (id: string): SubmitResult => ({ id, workload_id: id, status: 'accepted', revision: 1 });
