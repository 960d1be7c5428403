import type { SimSpec } from './types.js';

/**
 * The timing model shared by the preview's estimate and the simulator, so that a run's length
 * follows its estimate: the simulator perturbs each phase by at most JITTER around these nominal
 * durations, and the estimate's low/high bound that perturbation.
 */
export const JITTER = 0.1;
const LOW = 1 - JITTER - 0.05;
const HIGH = 1 + JITTER + 0.1;

interface NominalPlan {
  planningMs: number;
  reservingMs: number;
  provisioningMs: number;
  /** Baseline evaluation (train mode only). */
  baselineMs: number;
  trainingMs: number;
  evaluationMs: number;
  exportMs: number;
}

type EstimateInput = Pick<SimSpec, 'kind' | 'mode' | 'evaluationTasks' | 'trainingSteps' | 'simulation' | 'usdPerHour' | 'customRunSeconds'>;

const s = (seconds: number) => Math.round(seconds * 1000);

export function nominalPlan(spec: EstimateInput): NominalPlan {
  const sim = spec.simulation;
  const waves = Math.ceil(spec.evaluationTasks / Math.max(1, sim.eval_concurrency));
  const evalPhaseMs = s(waves * sim.seconds_per_attempt);
  const train = spec.kind === 'recipe' && spec.mode === 'train';
  return {
    planningMs: s(sim.planning_seconds),
    reservingMs: s(sim.reserving_seconds),
    provisioningMs: s(sim.provisioning_seconds),
    baselineMs: train ? evalPhaseMs : 0,
    trainingMs: train ? s(spec.trainingSteps * sim.seconds_per_training_step) : 0,
    evaluationMs: spec.kind === 'recipe' ? evalPhaseMs : s(spec.customRunSeconds ?? 0),
    exportMs: train ? s(sim.export_seconds) : 0,
  };
}

/** Running time: from the start of the first phase to the end of export. */
const executionMs = (p: NominalPlan) => p.baselineMs + p.trainingMs + p.evaluationMs + p.exportMs;
/** Accepted to completed. */
const completionMs = (p: NominalPlan) => p.planningMs + p.reservingMs + p.provisioningMs + executionMs(p);
/** Compute is held, and paid for, from provisioning to the end. */
export const billedMs = (p: NominalPlan) => p.provisioningMs + executionMs(p);

interface Range {
  low: number;
  high: number;
}

interface RunEstimate {
  executionSeconds: Range;
  completionSeconds: Range;
  computeCostUsd: Range;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;
const range = (nominal: number, digits: number): Range => ({ low: round(nominal * LOW, digits), high: round(nominal * HIGH, digits) });

export function estimateRun(spec: EstimateInput): RunEstimate {
  const plan = nominalPlan(spec);
  return {
    executionSeconds: range(executionMs(plan) / 1000, 0),
    completionSeconds: range(completionMs(plan) / 1000, 0),
    computeCostUsd: range((billedMs(plan) / 3_600_000) * spec.usdPerHour, 4),
  };
}
