import { planRun } from './plan.js';
import { simulate } from './timeline.js';
import { isTerminal, type Intervention, type RunPhase, type RunState, type SimSpec, type StageState, type Timeline, type WorkloadStatus } from './types.js';

/**
 * A run's state at virtual time t, folded from its timeline.
 *
 * Billing: compute is held, and paid for, while provisioning and running. `freezing` and
 * `recovering` bill like the status they interrupt (the machine is still held while state is
 * saved or execution is restored, so recovering from running bills, recovering from reserving
 * does not); `frozen` never bills (the compute was released). Spend is therefore non-decreasing,
 * flat while frozen, and for an uninterrupted run equals usdPerHour times provisioning-to-end.
 */

const BILLABLE: ReadonlySet<WorkloadStatus> = new Set(['provisioning', 'running']);
const INTERRUPTIONS: ReadonlySet<WorkloadStatus> = new Set(['freezing', 'frozen', 'recovering']);

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

function billable(status: WorkloadStatus, interrupted: WorkloadStatus): boolean {
  if (status === 'freezing' || status === 'recovering') return BILLABLE.has(interrupted);
  return BILLABLE.has(status);
}

/** The billing rule above, folded over status changes in time order. */
class Billing {
  status: WorkloadStatus = 'accepted';
  private interrupted: WorkloadStatus = 'accepted';
  billedMs = 0;
  runningMs = 0;

  constructor(private since: number) {}

  get billable(): boolean {
    return billable(this.status, this.interrupted);
  }

  accrue(to: number): void {
    const span = Math.max(0, to - this.since);
    if (this.billable) this.billedMs += span;
    if (this.status === 'running') this.runningMs += span;
    this.since = Math.max(this.since, to);
  }

  enter(status: WorkloadStatus, atMs: number): void {
    this.accrue(atMs);
    this.status = status;
    if (!INTERRUPTIONS.has(status)) this.interrupted = status;
  }

  spendUsd(spec: SimSpec): number {
    return round((spec.usdPerHour * this.billedMs) / 3_600_000, 6);
  }
}

/** Every attempt of the uninterrupted plan, retries of errored held-out attempts included. */
function totalUnits(spec: SimSpec): number {
  return planRun(spec).phases.reduce((n, p) => n + p.attempts.length, 0);
}

/** Before createdAtMs a run reads as just accepted, with nothing spent. */
export function stateAt(spec: SimSpec, interventions: readonly Intervention[], tMs: number, timeline: Timeline = simulate(spec, interventions)): RunState {
  const billing = new Billing(spec.createdAtMs);
  let generation = 1;
  let updatedAtMs = spec.createdAtMs;
  let phase: RunPhase | null = null;
  let stageStarted = false;
  let stageDone = false;
  let completedUnits = 0;
  let step: number | undefined;
  let lastLoss: number | undefined;

  for (const item of timeline.items) {
    if (item.atMs > tMs) break;
    updatedAtMs = item.atMs;
    if (item.kind === 'status') {
      billing.enter(item.status, item.atMs);
      generation = item.generation;
    } else if (item.kind === 'rl_event') {
      if (item.event.kind === 'task_completed') completedUnits++;
    } else if (item.kind === 'lifecycle') {
      const p = item.payload;
      switch (item.eventType) {
        case 'rl.phase_started': phase = p.phase as RunPhase; break;
        case 'rl.export_started': phase = 'export'; break;
        case 'rl.phase_completed':
        case 'rl.export_completed': phase = null; break;
        case 'stage.started': stageStarted = true; break;
        case 'stage.completed': stageDone = true; break;
        case 'rl.training_step':
          step = p.step as number;
          lastLoss = p.loss as number;
          break;
      }
    }
  }
  billing.accrue(tMs);

  const { status, runningMs } = billing;
  const terminal = isTerminal(status);
  const stage: StageState = {
    id: spec.stageId,
    status: terminal ? status : !stageStarted ? 'pending' : stageDone ? 'completed' : status,
    completed_units: completedUnits,
    total_units: totalUnits(spec),
  };
  if (spec.kind === 'recipe' && spec.mode === 'train') {
    stage.metric_step = step ?? 0;
    stage.metric_total_steps = spec.trainingSteps;
    if (lastLoss !== undefined) stage.last_loss = lastLoss;
  }
  if (completedUnits > 0 && runningMs > 0) stage.metric_rate = round(completedUnits / (runningMs / 1000), 4);

  return {
    status,
    generation,
    updatedAtMs,
    spendUsd: billing.spendUsd(spec),
    accruingRateUsdHour: billing.billable ? spec.usdPerHour : 0,
    phase: terminal ? null : phase,
    stage,
    terminal,
  };
}

/**
 * What stateAt(t).spendUsd answers for each of `times` (ascending), in one pass over the
 * timeline: billing periods and placements ask for many instants of one run.
 */
export function spendsAt(spec: SimSpec, timeline: Timeline, times: readonly number[]): number[] {
  const billing = new Billing(spec.createdAtMs);
  const spends: number[] = [];
  let i = 0;
  for (const t of times) {
    for (; i < timeline.items.length && timeline.items[i].atMs <= t; i++) {
      const item = timeline.items[i];
      if (item.kind === 'status') billing.enter(item.status, item.atMs);
    }
    billing.accrue(t);
    spends.push(billing.spendUsd(spec));
  }
  return spends;
}
