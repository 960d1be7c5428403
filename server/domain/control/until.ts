import type { z } from 'zod';
import type { ClockUntil } from '../../../openapi/mock.js';
import type { Store } from '../../../store/index.js';
import type { WorkloadStatus } from '../../simulator/types.js';
import { isoTime } from '../clock.js';
import { conflict } from '../errors.js';
import type { TenantUnit } from '../unit-of-work.js';

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

function statusAnswer(unit: TenantUnit, workloadId: string, wanted: WorkloadStatus): UntilAnswer {
  const row = unit.workload(workloadId);
  const { timeline } = unit.run(row);
  // The first status item that reaches it: in the past it holds, in the future that is when to look.
  for (const item of timeline.items) {
    if (item.kind !== 'status' || !reaches(item.status, wanted)) continue;
    if (item.atMs <= unit.nowMs) return { holds: true };
    return { holds: false, atMs: item.atMs, next: `workload ${row.id} becomes ${item.status} at ${isoTime(item.atMs)}` };
  }
  if (timeline.endAtMs === null) return { holds: false, never: resumeless(row.id) };
  const ended = `workload ${row.id} ended ${timeline.finalStatus} at ${isoTime(timeline.endAtMs)} without reaching ${wanted}`;
  if (timeline.endAtMs <= unit.nowMs) return { holds: false, never: ended };
  // Its timeline ends elsewhere, but what materialising applies on the way may still change that.
  return { holds: false, atMs: timeline.endAtMs, next: `workload ${row.id} ends ${timeline.finalStatus} at ${isoTime(timeline.endAtMs)} without reaching ${wanted}` };
}

/**
 * Idle is about virtual time: nothing left that moving the clock would change. A delivery due at
 * or before now is the delivery worker's, sent on the wall clock after the commit (POST
 * /_mock/webhooks/flush waits for those); one waiting for a retry at a later virtual time is not idle.
 */
function idleAnswer(store: Store, unit: TenantUnit): UntilAnswer {
  let last: { atMs: number; next: string } | undefined;
  for (const row of unit.openWorkloads()) {
    const { endAtMs, finalStatus } = unit.run(row).timeline;
    if (endAtMs === null) return { holds: false, never: resumeless(row.id) };
    if (!last || endAtMs > last.atMs) last = { atMs: endAtMs, next: `workload ${row.id} ends ${finalStatus} at ${isoTime(endAtMs)}` };
  }
  const dueAtMs = store.webhooks.lastDueAtMs(unit.tenantId);
  if (dueAtMs !== null && dueAtMs > unit.nowMs && (!last || dueAtMs > last.atMs)) {
    last = { atMs: dueAtMs, next: `a webhook delivery is retried at ${isoTime(dueAtMs)}` };
  }
  // The latest end, not the earliest: nothing before it can make the whole tenant idle.
  return last ? { holds: false, ...last } : { holds: true };
}

/** The condition at the unit's now, every workload materialised up to it. */
export function untilAnswer(store: Store, unit: TenantUnit, condition: UntilCondition): UntilAnswer {
  unit.everyWorkload();
  if (condition === 'idle') return idleAnswer(store, unit);
  return statusAnswer(unit, condition.workload_id, condition.status);
}

/**
 * Moves the clock from one scheduled change to the next until the condition holds, materialising
 * at each stop as any advance does (which may change timelines, so each stop asks again); answers
 * the new now. A refusal is thrown inside the unit, so its transaction rolls back: a condition that
 * cannot hold, or does not by the bound, moves nothing.
 */
export function advanceUntil(store: Store, unit: TenantUnit, condition: UntilCondition, maxSeconds: number): number {
  const boundMs = unit.nowMs + Math.round(maxSeconds * 1000);
  for (;;) {
    const answer = untilAnswer(store, unit, condition);
    if (answer.holds) return unit.nowMs;
    if ('never' in answer) throw conflict('condition_unreachable', `the condition cannot hold: ${answer.never}`);
    if (unit.nowMs >= boundMs) {
      throw conflict(
        'max_seconds_reached',
        `the condition does not hold within max_seconds (${maxSeconds}, until ${isoTime(boundMs)}): ${answer.next}; the clock did not move`,
      );
    }
    if (answer.atMs <= unit.nowMs) throw new Error(`advance until: the next look at ${answer.atMs} is not after now ${unit.nowMs}`);
    unit.advanceClock((Math.min(answer.atMs, boundMs) - unit.nowMs) / 1000);
  }
}
