import type { WorkloadFreeze } from '../../../openapi/workloads.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { DERIVED_IDS } from '../ids.js';
import { checkpoints } from './checkpoints.js';
import { isoTime } from '../clock.js';
import { DomainError } from '../errors.js';
import { firstAfter } from './materialise.js';
import type { RunContext } from './run.js';
import { isTerminal, type IgnoredIntervention, type Intervention } from '../../simulator/types.js';
import type { TenantUnit } from '../unit.js';

/**
 * Freeze and resume, which the SDK calls. The simulator already plays them (simulator/
 * interventions.ts): `freezing` at the request, `frozen` 10-20 s later with the compute released,
 * and after a resume the interrupted status returns 5-15 s later, every later item moved by the
 * paused span. This module records the request and reads the WorkloadFreeze back from the
 * timeline, so the record and the run cannot disagree.
 *
 * States: `requested` at the instant of the request, `releasing` while the run is freezing,
 * `frozen` once it is, `resuming` from a resume request until the run is back, `resumed` after;
 * `failed` when the run ended before the freeze (or the resume) completed. A run that ended while
 * frozen stays `frozen`: its state was saved.
 */

export type FreezeChange = 'freeze' | 'resume';

/** The codes of a refused request, by the simulator's reason for ignoring it. */
const REFUSALS: Record<IgnoredIntervention['reason'], [string, string]> = {
  terminal: ['workload_terminal', 'has ended; only an active workload can be frozen or resumed'],
  already_frozen: ['already_frozen', 'is already freezing, frozen or resuming; resume it, or wait until it runs again'],
  recovering: ['workload_recovering', 'is recovering from an interruption; freeze it once it runs again'],
  not_frozen: ['not_frozen', 'is not frozen; freeze it first (POST /v1/workloads/{id}/freeze)'],
  resume_pending: ['resume_pending', 'is already resuming'],
  frozen: ['already_frozen', 'is frozen'],
  before_creation: ['invalid_workload_state', 'did not exist yet'],
};

/** The last freeze the simulator applied, with the resume it applied after it, if any. */
function lastCycle(ctx: RunContext): { freeze: Intervention; resume?: Intervention; ordinal: number } | undefined {
  const ignored = new Set(ctx.timeline.ignored.map((i) => i.intervention));
  let cycle: { freeze: Intervention; resume?: Intervention; ordinal: number } | undefined;
  let ordinal = 0;
  for (const iv of ctx.interventions) {
    if (ignored.has(iv)) continue;
    if (iv.kind === 'freeze') cycle = { freeze: iv, ordinal: ++ordinal };
    else if (iv.kind === 'resume' && cycle) cycle.resume = iv;
  }
  return cycle;
}

/** The workload's latest freeze as of its materialised time, or undefined when it was never frozen. */
export function freezeView(row: WorkloadRow, ctx: RunContext): WorkloadFreeze | undefined {
  const cycle = lastCycle(ctx);
  if (!cycle) return undefined;
  const now = row.materialisedToMs;
  const items = ctx.timeline.items;
  const end = firstAfter(items, now);
  // The `freezing` status the freeze placed; items due at the same instant come before it.
  let i = firstAfter(items, cycle.freeze.atMs - 1);
  while (i < end && !(items[i].kind === 'status' && (items[i] as { status: string }).status === 'freezing')) i++;
  const freezing = items[i] as Extract<(typeof items)[number], { kind: 'status' }>;
  let frozenAtMs: number | null = null;
  let ended: 'resumed' | 'terminal' | null = null;
  for (i++; i < end && ended === null; i++) {
    const item = items[i];
    if (item.kind !== 'status') continue;
    if (item.status === 'frozen') frozenAtMs = item.atMs;
    else ended = isTerminal(item.status) ? 'terminal' : 'resumed';
  }
  const resumed = cycle.resume !== undefined && cycle.resume.atMs <= now;
  let state: WorkloadFreeze['state'];
  if (ended === 'resumed') state = 'resumed';
  else if (ended === 'terminal') state = frozenAtMs !== null && !resumed ? 'frozen' : 'failed';
  else if (resumed) state = 'resuming';
  else if (frozenAtMs !== null) state = 'frozen';
  else state = now > cycle.freeze.atMs ? 'releasing' : 'requested';
  const saved = frozenAtMs === null ? undefined : checkpoints(row, ctx).find((c) => c.trigger === 'freeze' && c.atMs === frozenAtMs);
  return {
    id: DERIVED_IDS.frz(row.id, cycle.ordinal),
    workload_id: row.id,
    stage_id: ctx.spec.stageId,
    ...(saved ? { manifest_id: saved.manifestId } : {}),
    ...(state === 'failed' ? { reason: `the workload ended (${row.status}) before the ${resumed ? 'resume' : 'freeze'} completed` } : {}),
    generation: freezing.generation,
    state,
    requested_at: isoTime(cycle.freeze.atMs),
    frozen_at: frozenAtMs === null ? null : isoTime(frozenAtMs),
    retained_bytes: saved?.bytes ?? 0,
    // Retained state is not billed on its own: the contract's only billing status says so.
    storage_charge_micros: null,
    storage_billing_status: 'retained_storage_not_separately_metered',
  };
}

/**
 * Records a freeze or resume on the workload (materialised, in the caller's transaction) and
 * answers the resulting WorkloadFreeze. The simulator decides whether it applies; one it ignores
 * (already frozen, nothing to resume, ended) stays recorded as ignored, as any intervention the
 * simulator cannot apply does, and comes back as the 409 to throw once that is committed.
 */
export function changeFreeze(unit: TenantUnit, current: WorkloadRow, kind: FreezeChange): { view: WorkloadFreeze } | { refusal: DomainError } {
  const row = unit.intervene(current, kind);
  const ctx = unit.run(row);
  const recorded = ctx.interventions[ctx.interventions.length - 1];
  const ignored = ctx.timeline.ignored.find((i) => i.intervention === recorded);
  if (ignored) {
    const [code, problem] = REFUSALS[ignored.reason];
    return { refusal: new DomainError('conflict', code, `cannot ${kind} workload ${row.id}: it ${problem} (status ${row.status})`) };
  }
  return { view: freezeView(row, ctx)! };
}
