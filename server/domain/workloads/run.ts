import type { Intervention, SimSpec, Timeline, TimelineItem } from '../../simulator/types.js';

/*
 * The simulated run behind a workload, as the domain passes it on: the materialiser derives it
 * (materialise.ts), a unit hands it out (TenantUnit.run), views and the outbox read it. Kept out
 * of materialise.ts, which names a unit, so that the unit's interface (unit.ts) can name these.
 */

export interface RunContext {
  spec: SimSpec;
  interventions: Intervention[];
  timeline: Timeline;
}

/** When a run ends by its timeline (null: it stays frozen) and in which status. */
export type RunEnd = Pick<Timeline, 'endAtMs' | 'finalStatus'>;

export type StatusItem = Extract<TimelineItem, { kind: 'status' }>;
