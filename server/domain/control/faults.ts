import type { z } from 'zod';
import type { FaultAction, FaultRule } from '../../../openapi/mock.js';
import type { FaultRow, FaultSource } from '../../../store/faults.js';
import { newFaultId } from '../ids.js';
import type { TenantUnit } from '../unit.js';

export type FaultRuleInput = z.output<typeof FaultRule>;
export type FaultActionInput = z.output<typeof FaultAction>;

/** What the fault hook did to a request, for the journal. */
export interface AppliedFault {
  id: string;
  type: FaultActionInput['type'];
}

/** Stores a rule (POST /_mock/faults, or a scenario file's entry) in the unit's transaction, made at its now. */
export function addFault(unit: TenantUnit, rule: FaultRuleInput, source: FaultSource): FaultRow {
  const { tables, tenantId } = unit;
  const id = newFaultId();
  tables.faults.insert({
    id,
    tenantId,
    method: rule.method ?? null,
    path: rule.path,
    times: rule.times,
    after: rule.after,
    action: JSON.stringify(rule.action),
    source,
    createdAtMs: unit.nowMs,
  });
  return tables.faults.get(tenantId, id)!;
}
