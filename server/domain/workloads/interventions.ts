import type { RuleAction } from '../../../openapi/workload-rules.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { isTerminal } from '../../simulator/types.js';
import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';
import { putGradingPlan } from '../evidence/grading.js';
import type { TenantUnit } from '../unit.js';

/** Where an intervention comes from: a /_mock route at the unit's now, or a rule when its trigger came. */
export interface InterventionOrigin {
  /** It takes effect after this virtual time (and after everything already materialised). */
  afterMs: number;
  /** The workload rule that made it, recorded with it (the inspector marks it). */
  rule?: string;
}

const refuse = (row: WorkloadRow, what: string) =>
  new DomainError('conflict', 'invalid_workload_state', `cannot ${what} workload ${row.id} while it is ${row.status}`);

/**
 * What a test does to a run, by hand (POST /_mock/workloads/{id}/recover, drop-events, fail, PUT
 * grading-plan) or by a workload rule: the same rules for both, so a scripted recovery is the one
 * a test could have asked for at that moment. A state that forbids it is a 409 DomainError, thrown
 * before anything is written. Answers the row after it.
 */
export function intervene(deps: Pick<DomainContext, 'materialiser'>, unit: TenantUnit, row: WorkloadRow, action: RuleAction, origin: InterventionOrigin): WorkloadRow {
  const marked = origin.rule === undefined ? {} : { rule: origin.rule };
  switch (action.type) {
    case 'recover':
      if (row.status !== 'running' && row.status !== 'provisioning') throw refuse(row, 'recover');
      return unit.interveneAfter(row, origin.afterMs, 'recover', { replayLast: action.replay_last ?? 0, ...marked });
    case 'fail':
      if (isTerminal(row.status)) throw refuse(row, 'fail');
      return unit.interveneAfter(row, origin.afterMs, 'fail', {
        reason: action.reason ?? (origin.rule ? `failed by workload rule ${origin.rule}` : 'failed on request (POST /_mock/workloads/{id}/fail)'),
        ...marked,
      });
    case 'drop_events':
      // The run goes on unchanged: only the evidence counters move.
      unit.tables.runtime.addIntervention(row.id, origin.afterMs, 'drop_events', { count: action.count, ...marked });
      unit.tables.rlEvents.drop(row.id, action.count);
      return row;
    case 'grading_plan': {
      const { type: _type, ...update } = action;
      putGradingPlan(deps, unit, row, update, origin.afterMs);
      return row;
    }
  }
}
