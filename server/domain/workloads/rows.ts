import type { SubmitResult } from '../../../openapi/workload-payload.js';
import { FIRST_GENERATION, type SimSpec } from '../../simulator/types.js';
import type { TenantUnit } from '../unit.js';

/*
 * A workload being admitted, written once for every way in (a recipe launch, a POST /v1/workloads,
 * an example run): its row, and the tenant's workload rules fixed into it (rules.ts applies them).
 */

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

/** The facts a rule's `match` names, of a workload being admitted. */
function factsOf(w: NewWorkload): Record<string, string | undefined> {
  const rl = w.payload.rl as { environment_id?: string } | undefined;
  return { recipe_id: w.spec.recipe?.id, environment_id: rl?.environment_id, mode: w.spec.mode, kind: w.origin };
}

/**
 * Fixes into a workload being admitted each of the tenant's rules that matches it (the nth
 * matching, when the rule names one), in the admitting transaction: later rules leave it as it
 * was admitted (deleting this one ends it, if it has not applied yet).
 */
export function bindRules(unit: TenantUnit, w: NewWorkload): void {
  const { tables, tenantId } = unit;
  const rules = tables.cached.workloadRules(tenantId);
  if (rules.length === 0) return;
  const facts = factsOf(w);
  let position = 0;
  for (const rule of rules) {
    const { nth, ...match } = JSON.parse(rule.match) as Record<string, string> & { nth?: number };
    if (!Object.entries(match).every(([field, wanted]) => facts[field] === wanted)) continue;
    const matched = tables.workloadRules.countMatch(tenantId, rule.seq);
    if (nth !== undefined && matched !== nth) continue;
    tables.workloadRules.bind({ tenantId, workloadId: w.id, ruleId: rule.id, position: position++, at: rule.at, action: rule.action });
  }
}
