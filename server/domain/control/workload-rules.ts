import type { WorkloadRuleInput } from '../../../openapi/workload-rules.js';
import type { FaultSource } from '../../../store/faults.js';
import type { RuleBindings, WorkloadRuleRow } from '../../../store/workload-rules.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { newWorkloadRuleId } from '../ids.js';
import type { TenantUnit } from '../unit.js';

/** Workloads of a rule listed at most, first bound first; the counts cover every one. */
const LISTED_BINDINGS = 100;

/** A rule with what it has bound: the counts and the first workloads. */
export interface WorkloadRuleState {
  rule: WorkloadRuleRow;
  bindings: RuleBindings;
}

/** Stores a rule (POST /_mock/workload-rules, or a scenario file's entry); it binds workloads admitted from now on. */
export function addWorkloadRule(unit: TenantUnit, rule: WorkloadRuleInput, source: FaultSource): WorkloadRuleRow {
  const { tables, tenantId } = unit;
  const id = newWorkloadRuleId();
  tables.workloadRules.insert({
    id,
    tenantId,
    match: JSON.stringify(rule.match),
    at: JSON.stringify(rule.at),
    action: JSON.stringify(rule.action),
    source,
    createdAtMs: unit.nowMs,
  });
  return tables.workloadRules.get(tenantId, id)!;
}

/** /_mock/workload-rules: each call one transaction. */
export function createWorkloadRuleService(deps: Pick<DomainContext, 'committed' | 'units'>) {
  const { committed, units } = deps;
  const stateOf = (unit: TenantUnit, rule: WorkloadRuleRow): WorkloadRuleState => ({ rule, bindings: unit.tables.workloadRules.bindings(rule.id, LISTED_BINDINGS) });
  return {
    add(tenantId: string, rule: WorkloadRuleInput): WorkloadRuleState {
      return units.atNow(tenantId, (unit) => stateOf(unit, addWorkloadRule(unit, rule, 'api')));
    },

    /**
     * Every rule of the tenant, oldest first, with what each has bound as of now: the tenant's
     * runs are materialised first (in slices, then what fell due since in the list's own unit),
     * so what their triggers did by now (or can no longer do) shows.
     */
    async list(tenantId: string): Promise<WorkloadRuleState[]> {
      if (committed.cached.workloadRules(tenantId).length) await units.everyWorkloadInSlices(tenantId);
      return units.atNow(tenantId, (unit) => {
        const rules = unit.tables.cached.workloadRules(tenantId);
        if (rules.length) unit.materialiseEveryWorkload();
        return rules.map((rule) => stateOf(unit, rule));
      });
    },

    /** Stops the rule: what it applied stays; its bindings still pending end as skipped. */
    remove(tenantId: string, id: string): void {
      units.atNow(tenantId, (unit) => {
        if (!unit.tables.workloadRules.delete(tenantId, id, unit.nowMs)) throw notFound(`workload rule ${id}`);
      });
    },

    clear(tenantId: string): void {
      units.atNow(tenantId, (unit) => unit.tables.workloadRules.clear(tenantId, unit.nowMs));
    },
  };
}
