import type { RuleAction, RuleTrigger } from '../../../openapi/workload-rules.js';
import type { BindingRow } from '../../../store/workload-rules.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import type { Timeline } from '../../simulator/types.js';
import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';
import type { TenantUnit } from '../unit.js';
import { intervene } from './interventions.js';

/*
 * Workload rules at work (docs/control-api.md, Workload rules): fixed into a workload when it is
 * admitted (rows.ts), applied by the unit of work as it materialises the run past the trigger. A
 * trigger's time is read off the run's timeline as it stands (interventions included), so the
 * same seed, rules and clock moves give the same run.
 */

/** A binding whose trigger has come by now, when; `never` says why it can no longer apply. */
export interface DueRule {
  binding: BindingRow;
  atMs: number;
  never?: string;
}

type Deps = Pick<DomainContext, 'materialiser'>;

/** How a trigger reads in a note: `phase training step 3`, `running_seconds 60`. */
const describe = (at: RuleTrigger) => Object.entries(at).map(([k, v]) => `${k} ${v}`).join(' ');

/** When the trigger comes in this timeline; undefined when it does not (yet), or is not a time (`reads`). */
function triggerTime(at: RuleTrigger, timeline: Timeline): number | undefined {
  if (at.reads !== undefined) return undefined;
  let events = 0;
  for (const item of timeline.items) {
    if (at.running_seconds !== undefined) {
      if (item.kind === 'status' && item.status === 'running') return item.atMs + Math.round(at.running_seconds * 1000);
    } else if (at.events !== undefined) {
      if (item.kind === 'rl_event' && ++events === at.events) return item.atMs;
    } else if (item.kind === 'lifecycle') {
      // Step n begins as step n - 1 ends; step 1 as the phase does.
      const { step = 1 } = at;
      if (step === 1 ? item.eventType === 'rl.phase_started' && item.payload.phase === at.phase : item.eventType === 'rl.training_step' && item.payload.step === step - 1) {
        return item.atMs;
      }
    }
  }
  return undefined;
}

/** Trigger times are read per timeline: a timeline changes only with a new one. */
const triggerTimes = new WeakMap<Timeline, Map<string, number | undefined>>();

function cachedTriggerTime(binding: BindingRow, timeline: Timeline): number | undefined {
  let times = triggerTimes.get(timeline);
  if (!times) triggerTimes.set(timeline, (times = new Map()));
  if (!times.has(binding.at)) times.set(binding.at, triggerTime(JSON.parse(binding.at) as RuleTrigger, timeline));
  return times.get(binding.at);
}

/**
 * When the earliest of these pending bindings comes due in this timeline: its trigger's time, or
 * the run's end for a trigger that can no longer come (`never`). Undefined when none is in sight
 * (a `reads` trigger waits for a read, which no clock move makes).
 */
export function nextDue(pending: readonly BindingRow[], timeline: Timeline): DueRule | undefined {
  let due: DueRule | undefined;
  for (const binding of pending) {
    const at = JSON.parse(binding.at) as RuleTrigger;
    if (at.reads !== undefined) continue;
    let atMs = cachedTriggerTime(binding, timeline);
    let never: string | undefined;
    if (timeline.endAtMs !== null && (atMs === undefined || atMs > timeline.endAtMs)) {
      atMs = timeline.endAtMs;
      never = `the run ended (${timeline.finalStatus}) before ${describe(at)}`;
    }
    if (atMs !== undefined && (!due || atMs < due.atMs)) due = { binding, atMs, ...(never ? { never } : {}) };
  }
  return due;
}

/**
 * The workload's binding due by the unit's now, earliest first, or undefined. Costs nothing for a
 * tenant without rules, which is nearly every one: it has no binding pending either.
 */
export function dueRule(unit: TenantUnit, row: WorkloadRow): DueRule | undefined {
  const { tables } = unit;
  if (tables.cached.workloadRules(row.tenantId).length === 0) return undefined;
  const pending = tables.workloadRules.pending(row.id);
  if (pending.length === 0) return undefined;
  const due = nextDue(pending, unit.run(row).timeline);
  return due && due.atMs <= unit.nowMs ? due : undefined;
}

/**
 * Applies a due binding's actions in order, each as the route would at that moment; one that the
 * run's state forbids (a recovery of an ended run) is noted, never an error for the client. The
 * binding is `applied` when any action applied, else `skipped`.
 */
export function applyRule(deps: Deps, unit: TenantUnit, row: WorkloadRow, { binding, atMs, never }: DueRule): WorkloadRow {
  const { ruleId } = binding;
  if (never) {
    unit.tables.workloadRules.settle(row.id, ruleId, 'skipped', atMs, never);
    return row;
  }
  const actions = [JSON.parse(binding.action) as RuleAction | RuleAction[]].flat();
  const refused: string[] = [];
  let current = row;
  for (const action of actions) {
    try {
      current = intervene(deps, unit, current, action, { afterMs: atMs, rule: ruleId });
    } catch (err) {
      if (!(err instanceof DomainError) || err.refusal !== 'conflict') throw err;
      refused.push(`${action.type}: ${err.message}`);
    }
  }
  unit.tables.workloadRules.settle(row.id, ruleId, refused.length === actions.length ? 'skipped' : 'applied', atMs, refused.join('; ') || null);
  return current;
}

/** Counts a read of the workload's task events; a binding waiting for this read applies now. */
export function countEventRead(deps: Deps, unit: TenantUnit, row: WorkloadRow): WorkloadRow {
  if (unit.tables.cached.workloadRules(row.tenantId).length === 0) return row;
  let current = row;
  for (const binding of unit.tables.workloadRules.pending(row.id)) {
    const { reads } = JSON.parse(binding.at) as RuleTrigger;
    if (reads === undefined) continue;
    unit.tables.workloadRules.countRead(row.id, binding.ruleId);
    if (binding.reads + 1 >= reads) current = applyRule(deps, unit, current, { binding, atMs: Math.max(unit.nowMs, current.materialisedToMs) });
  }
  return current;
}
