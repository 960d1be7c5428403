/**
 * The job simulator: a pure function of a workload's spec, its recorded interventions and virtual
 * time, so a restart loses nothing and the same calls give the same rows. No I/O, no clock, no
 * randomness but the seed's.
 */
import { buildOutputs } from './outputs.js';
import { simulate } from './timeline.js';
import type { Intervention, SimOutput, SimSpec, Timeline } from './types.js';

export { simulate } from './timeline.js';
export { spendsAt, stateAt } from './state.js';
export { gradingPlanSha256 } from './grading.js';
export { rlEventId } from './event-ids.js';
export { RL_EVENT_PREFIX, rlEventLine } from './logs.js';
export { outputNames } from './outputs.js';
export * from './types.js';

/** The files a completed recipe run publishes; [] for any other run or before completion. */
export function simulatedOutputs(spec: SimSpec, interventions: readonly Intervention[], timeline: Timeline = simulate(spec, interventions)): SimOutput[] {
  return timeline.finalStatus === 'completed' ? buildOutputs(spec) : [];
}
