import type { z } from 'zod';
import type { ClockUntil } from '../../../openapi/mock.js';
import type { WorkloadStatus } from '../../simulator/types.js';
import { CLOCK_RANGE_MS, isoTime } from '../clock.js';
import { conflict, notFound } from '../errors.js';
import type { TenantUnit } from '../unit.js';
import { nextDue } from '../workloads/rules.js';
import type { WorkloadRow } from '../../../store/workloads.js';

export type UntilCondition = z.output<typeof ClockUntil>;

/**
 * What a condition says at the unit's now: it holds; or it may hold at `atMs` (the next scheduled
 * change that could make it true, with what happens then, for a message); or it never can.
 */
export type UntilAnswer =
  | { holds: true }
  | { holds: false; atMs: number; next: string }
  | { holds: false; never: string };

/** The default bound of an advance until: one virtual week. */
export const UNTIL_MAX_SECONDS = 7 * 24 * 3600;

/**
 * The path every run takes when nothing interrupts it. Being in one of these statuses means every
 * earlier one was reached; the interruptions (recovering, freezing, frozen) and the other ends
 * (failed, cancelled) imply nothing but themselves.
 */
const PATH: readonly WorkloadStatus[] = ['accepted', 'planning', 'reserving', 'provisioning', 'running', 'completed'];

function reaches(status: WorkloadStatus, wanted: WorkloadStatus): boolean {
  const rank = PATH.indexOf(wanted);
  return status === wanted || (rank >= 0 && PATH.indexOf(status) > rank);
}

const resumeless = (id: string) => `workload ${id} stays frozen: nothing resumes it`;

type Look = { atMs: number; next: string };

/**
 * The earlier of a look and the workload's next workload rule: a rule may change the run (recover
 * it, fail it), so the clock stops there and asks again rather than passing the moment the
 * condition comes true.
 */
function beforeRules(unit: TenantUnit, row: WorkloadRow, look: Look): Look {
  const pending = unit.tables.workloadRules.pending(row.id);
  if (pending.length === 0) return look;
  const due = nextDue(pending, unit.run(row).timeline);
  return due && due.atMs > unit.nowMs && due.atMs < look.atMs
    ? { atMs: due.atMs, next: `workload rule ${due.binding.ruleId} comes due on workload ${row.id} at ${isoTime(due.atMs)}` }
    : look;
}

function statusAnswer(unit: TenantUnit, workloadId: string, wanted: WorkloadStatus): UntilAnswer {
  const row = unit.workload(workloadId);
  const { timeline } = unit.run(row);
  // The first status item that reaches it: in the past it holds, in the future that is when to look.
  for (const item of timeline.items) {
    if (item.kind !== 'status' || !reaches(item.status, wanted)) continue;
    if (item.atMs <= unit.nowMs) return { holds: true };
    return { holds: false, ...beforeRules(unit, row, { atMs: item.atMs, next: `workload ${row.id} becomes ${item.status} at ${isoTime(item.atMs)}` }) };
  }
  if (timeline.endAtMs === null) return { holds: false, never: resumeless(row.id) };
  const ended = `workload ${row.id} ended ${timeline.finalStatus} at ${isoTime(timeline.endAtMs)} without reaching ${wanted}`;
  if (timeline.endAtMs <= unit.nowMs) return { holds: false, never: ended };
  // Its timeline ends elsewhere, but a workload rule on the way may still change that.
  const end = { atMs: timeline.endAtMs, next: `workload ${row.id} ends ${timeline.finalStatus} at ${isoTime(timeline.endAtMs)} without reaching ${wanted}` };
  const look = beforeRules(unit, row, end);
  return look === end ? { holds: false, never: end.next } : { holds: false, ...look };
}

/**
 * Idle is about virtual time: nothing left that moving the clock would change. A delivery due at
 * or before now is the delivery worker's, sent on the wall clock after the commit (POST
 * /_mock/webhooks/flush waits for those); one waiting for a retry at a later virtual time is not idle.
 * A run that has ended by now counts as ended though it may not be materialised that far yet
 * (the advance's slices do that once the clock has moved); only a run with a workload rule due
 * by now is brought up to now here, since the rule may change when it ends.
 */
function idleAnswer(unit: TenantUnit): UntilAnswer {
  let last: Look | undefined;
  let rules: Look | undefined;
  for (const stored of unit.tables.workloads.unsettled(unit.tenantId)) {
    const row = unit.withDueRulesApplied(stored);
    const { endAtMs, finalStatus } = unit.end(row);
    if (endAtMs === null) return { holds: false, never: resumeless(row.id) };
    if (endAtMs <= unit.nowMs) continue;
    const end = { atMs: endAtMs, next: `workload ${row.id} ends ${finalStatus} at ${isoTime(endAtMs)}` };
    if (!last || endAtMs > last.atMs) last = end;
    const rule = beforeRules(unit, row, end);
    if (rule !== end && (!rules || rule.atMs < rules.atMs)) rules = rule;
  }
  const dueAtMs = unit.tables.webhooks.lastDueAtMs(unit.tenantId);
  if (dueAtMs !== null && dueAtMs > unit.nowMs && (!last || dueAtMs > last.atMs)) {
    last = { atMs: dueAtMs, next: `a webhook delivery is retried at ${isoTime(dueAtMs)}` };
  }
  // The latest end, not the earliest: nothing before it can make the whole tenant idle, unless a
  // workload rule before it changes when some run ends.
  if (!last) return { holds: true };
  return { holds: false, ...(rules && rules.atMs < last.atMs ? rules : last) };
}

/**
 * A rule has applied once any of its bindings has; a binding waiting for a read never comes by
 * moving the clock. The rule's workloads are brought up to now first: a binding due by now
 * applies on the way.
 */
function ruleAnswer(unit: TenantUnit, ruleId: string): UntilAnswer {
  if (!unit.tables.workloadRules.get(unit.tenantId, ruleId)) throw notFound(`workload rule ${ruleId}`);
  for (const binding of unit.tables.workloadRules.pendingOfRule(ruleId)) unit.workload(binding.workloadId);
  if (unit.tables.workloadRules.bindings(ruleId, 0).counts.applied > 0) return { holds: true };
  let look: Look | undefined;
  for (const binding of unit.tables.workloadRules.pendingOfRule(ruleId)) {
    const row = unit.workload(binding.workloadId);
    const due = nextDue([binding], unit.run(row).timeline);
    if (due && (!look || due.atMs < look.atMs)) {
      look = { atMs: due.atMs, next: `workload rule ${ruleId} comes due on workload ${row.id} at ${isoTime(due.atMs)}` };
    }
  }
  if (look) return { holds: false, ...look };
  const { counts } = unit.tables.workloadRules.bindings(ruleId, 0);
  return {
    holds: false,
    never: counts.pending
      ? `workload rule ${ruleId} waits only for reads of rl-events, which moving the clock does not make`
      : `workload rule ${ruleId} has no binding left to apply (bound ${counts.skipped} workloads, each skipped); a workload launched later may still match it`,
  };
}

/**
 * The condition at the unit's now. Only the workloads it names (or, for idle, those with a rule
 * due) are materialised to now: the others' timelines say when they end without their events
 * being written, and the advance writes those in slices after its commit.
 */
export function untilAnswer(unit: TenantUnit, condition: UntilCondition): UntilAnswer {
  if (condition === 'idle') return idleAnswer(unit);
  if ('rule' in condition) return ruleAnswer(unit, condition.rule);
  return statusAnswer(unit, condition.workload_id, condition.status);
}

/**
 * Moves the clock from one scheduled change to the next until the condition holds, applying the
 * workload rules that come due at each stop (which may change timelines, so each stop asks
 * again); answers the new now. A refusal is thrown inside the unit, so its transaction rolls
 * back: a condition that cannot hold, or does not by the bound, moves nothing.
 */
export function advanceUntil(unit: TenantUnit, condition: UntilCondition, maxSeconds: number): number {
  // No further than the end of the clock's range either.
  const boundMs = Math.min(unit.nowMs + Math.round(maxSeconds * 1000), Math.max(unit.nowMs, CLOCK_RANGE_MS.max));
  for (;;) {
    const answer = untilAnswer(unit, condition);
    if (answer.holds) return unit.nowMs;
    if ('never' in answer) throw conflict('condition_unreachable', `the condition cannot hold: ${answer.never}`);
    if (unit.nowMs >= boundMs) {
      throw conflict(
        'max_seconds_reached',
        `the condition does not hold within max_seconds (${maxSeconds}, until ${isoTime(boundMs)}${boundMs === CLOCK_RANGE_MS.max ? ', the end of the clock\'s range' : ''}): ${answer.next}; the clock did not move`,
      );
    }
    if (answer.atMs <= unit.nowMs) throw new Error(`advance until: the next look at ${answer.atMs} is not after now ${unit.nowMs}`);
    unit.advanceClock((Math.min(answer.atMs, boundMs) - unit.nowMs) / 1000);
  }
}
