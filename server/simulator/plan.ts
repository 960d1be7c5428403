import { JITTER, nominalPlan } from './estimate.js';
import { passProbability, stepMetrics } from './learning.js';
import { rngFor } from './random.js';
import { ERROR_MESSAGES, attemptTrace, heldOutTaskId, tasksetPrefix, trainTaskId, type AttemptTrace, type Outcome } from './tasks.js';
import type { RLPhase, Settlement, SimSpec } from './types.js';

/**
 * The uninterrupted run, decided from the spec alone: when each status begins, each phase's
 * window, every attempt with its times and outcome, every training step with its metrics. Times
 * are milliseconds after createdAtMs. Interventions later shift or cut this plan; they never
 * change an outcome, so results.json depends on the spec only.
 */

/** How and when the grader settles a final-evaluation attempt. */
type PlannedGrading = Settlement & { finalAtMs: number };

export interface PlannedAttempt {
  phase: RLPhase;
  taskId: string;
  attempt: number;
  startMs: number;
  endMs: number;
  outcome: Outcome;
  /** 1 passed, 0 failed; absent for errors, which are unscored. */
  reward?: number;
  /** Set for errors. */
  message?: string;
  /** Present when events carry traces or a grading receipt hashes the reply. */
  trace?: AttemptTrace;
  /** Final-evaluation attempts of a privately graded run. */
  grading?: PlannedGrading;
}

export interface PlannedPhase {
  phase: RLPhase;
  startMs: number;
  endMs: number;
  /** Distinct tasks of the phase (held-out tasks, or one training task per step). */
  tasks: number;
  attempts: PlannedAttempt[];
}

export interface PlannedStep {
  step: number;
  taskId: string;
  startMs: number;
  endMs: number;
  attempts: PlannedAttempt[];
  rewardMean: number;
  loss: number;
  kl: number;
}

export interface RunPlan {
  planningAtMs: number;
  reservingAtMs: number;
  provisioningAtMs: number;
  runningAtMs: number;
  /** In order: baseline, training, evaluation (train mode) or evaluation alone; none for custom runs. */
  phases: PlannedPhase[];
  steps: PlannedStep[];
  /** Writing results and the adapter; train mode only (the timing model gives evaluate mode none). */
  exportWindow: { startMs: number; endMs: number } | null;
  /** Completion. */
  endMs: number;
}

export interface PhaseTally {
  attempts: number;
  passed: number;
  failed: number;
  errors: number;
  /** passed / (passed + failed), null when nothing was scored. */
  pass_rate: number | null;
}

export function tally(attempts: readonly PlannedAttempt[]): PhaseTally {
  let passed = 0;
  let failed = 0;
  for (const a of attempts) {
    if (a.outcome === 'passed') passed++;
    else if (a.outcome === 'failed') failed++;
  }
  const scored = passed + failed;
  return { attempts: attempts.length, passed, failed, errors: attempts.length - scored, pass_rate: scored ? passed / scored : null };
}

/** Groups of replies per training task are drawn from a pool at least this large (SDK default). */
const TRAIN_POOL = 256;
/** The end of a graded evaluation phase waits at most this long for the grader. */
const GRADING_TAIL_MS = 6000;

/** A nominal duration perturbed by a seeded factor within ±JITTER. */
const perturb = (spec: SimSpec, ms: number, what: string) => Math.round(ms * (1 + rngFor(spec.seed, 'duration', what).uniform(-JITTER, JITTER)));

function drawAttempt(spec: SimSpec, phase: RLPhase, taskId: string, attempt: number, passP: number, startMs: number, endMs: number): PlannedAttempt {
  const rng = rngFor(spec.seed, 'outcome', phase, taskId, attempt);
  const errored = rng.chance(spec.simulation.error_rate);
  const outcome: Outcome = errored ? 'error' : rng.chance(passP) ? 'passed' : 'failed';
  const planned: PlannedAttempt = { phase, taskId, attempt, startMs, endMs, outcome };
  if (errored) planned.message = rng.pick(ERROR_MESSAGES);
  else planned.reward = outcome === 'passed' ? 1 : 0;
  if (spec.includeTraces || (spec.privateGrading && phase === 'evaluation')) {
    planned.trace = attemptTrace(spec.taskset, taskId, outcome, rngFor(spec.seed, 'reply', phase, taskId, attempt));
  }
  return planned;
}

/** How the grader settles an attempt: also used for receipts derived from reported attempts. */
export function gradeAttempt(spec: SimSpec, a: Pick<PlannedAttempt, 'taskId' | 'attempt' | 'endMs' | 'outcome'>, tailMs: number): PlannedGrading {
  const rng = rngFor(spec.seed, 'grading', a.taskId, a.attempt);
  const finalAtMs = a.endMs + Math.round(tailMs * rng.uniform(0.3, 1));
  // An errored attempt left no complete candidate to grade.
  if (a.outcome === 'error') return { finalAtMs, state: 'infrastructure_failure', code: 'output_incomplete' };
  if (rng.chance(spec.simulation.infrastructure_failure_rate)) {
    return { finalAtMs, state: 'infrastructure_failure', code: rng.pick(['grading_unavailable', 'execution_lost'] as const) };
  }
  return { finalAtMs, state: 'completed', reward: a.outcome === 'passed' ? 1 : 0 };
}

/** Attempts one held-out task may take in one phase: the first and up to two retries. */
export const MAX_ATTEMPTS = 3;

/**
 * An evaluation phase: `eval_concurrency` slots, each taking the next held-out task when free,
 * attempts lasting around seconds_per_attempt; the schedule is then scaled to fill the phase's
 * (perturbed) length, less the grading tail when receipts must be final before the phase ends.
 * As a runtime does, the slot retries an errored attempt at once as the task's next attempt, up to
 * MAX_ATTEMPTS, unless the error is unrecoverable (`unrecoverable_error_rate`): so every task is
 * scored once unless something unrecoverable happened, and the errors stay as earlier attempts.
 */
function evaluationPhase(spec: SimSpec, phase: RLPhase, taskIds: string[], startMs: number, lengthMs: number, passSteps: number): PlannedPhase {
  const sim = spec.simulation;
  const graded = spec.privateGrading && phase === 'evaluation';
  const tailMs = graded ? Math.min(GRADING_TAIL_MS, Math.round(lengthMs * 0.2)) : 0;
  const slots = new Array<number>(Math.max(1, Math.min(sim.eval_concurrency, taskIds.length))).fill(0);
  const raw: Array<{ attempt: PlannedAttempt; start: number; end: number }> = [];
  for (const taskId of taskIds) {
    const slot = slots.indexOf(Math.min(...slots));
    const passP = passProbability(spec, taskId, passSteps);
    for (let n = 1; n <= MAX_ATTEMPTS; n++) {
      const rng = rngFor(spec.seed, 'attempt-time', phase, taskId, n);
      const start = slots[slot] + rng.uniform(50, 400);
      const end = start + sim.seconds_per_attempt * 1000 * rng.uniform(0.75, 1.25);
      slots[slot] = end;
      const attempt = drawAttempt(spec, phase, taskId, n, passP, 0, 0);
      raw.push({ attempt, start, end });
      if (attempt.outcome !== 'error' || rngFor(spec.seed, 'unrecoverable', phase, taskId, n).chance(sim.unrecoverable_error_rate ?? 0)) break;
    }
  }
  const makespan = Math.max(...slots);
  const scale = makespan > 0 ? (lengthMs - tailMs) / makespan : 0;
  const attempts = raw.map(({ attempt: a, start, end }) => {
    a.startMs = startMs + Math.round(start * scale);
    a.endMs = startMs + Math.round(end * scale);
    if (graded) a.grading = gradeAttempt(spec, a, tailMs);
    return a;
  });
  return { phase, startMs, endMs: startMs + lengthMs, tasks: taskIds.length, attempts };
}

/**
 * GRPO training: step k is one group of `group_size` replies to its own training task (so task,
 * attempt and phase never repeat), generated in parallel at the start of the step; the policy
 * update fills the rest of it. Step lengths vary around seconds_per_training_step and add up to
 * the phase's perturbed length.
 */
function trainingSteps(spec: SimSpec, startMs: number, lengthMs: number): PlannedStep[] {
  const sim = spec.simulation;
  const n = spec.trainingSteps;
  const prefix = tasksetPrefix(spec.taskset);
  const order = rngFor(spec.seed, 'train-tasks').shuffled(Array.from({ length: Math.max(TRAIN_POOL, n) }, (_, i) => i));
  const weights = Array.from({ length: n }, (_, i) => rngFor(spec.seed, 'step-time', i + 1).uniform(0.85, 1.15));
  const total = weights.reduce((s, w) => s + w, 0);
  const steps: PlannedStep[] = [];
  let cumulative = 0;
  let stepStart = startMs;
  for (let k = 1; k <= n; k++) {
    cumulative += weights[k - 1];
    const stepEnd = startMs + Math.round((lengthMs * cumulative) / total);
    const length = stepEnd - stepStart;
    const taskId = trainTaskId(prefix, order[k - 1]);
    const passP = passProbability(spec, taskId, k - 1);
    const attempts: PlannedAttempt[] = [];
    for (let a = 1; a <= sim.group_size; a++) {
      const rng = rngFor(spec.seed, 'attempt-time', 'training', taskId, a);
      const start = stepStart + Math.round(rng.uniform(0, 0.03) * length);
      const duration = Math.round(Math.min(sim.seconds_per_attempt * 1000 * rng.uniform(0.7, 1.3), 0.65 * length));
      attempts.push(drawAttempt(spec, 'training', taskId, a, passP, start, start + duration));
    }
    const scored = attempts.filter((a) => a.reward !== undefined);
    const rewardMean = scored.length ? Math.round((scored.reduce((s, a) => s + (a.reward ?? 0), 0) / scored.length) * 1e6) / 1e6 : 0;
    steps.push({ step: k, taskId, startMs: stepStart, endMs: stepEnd, attempts, rewardMean, ...stepMetrics(spec, k) });
    stepStart = stepEnd;
  }
  return steps;
}

export function planRun(spec: SimSpec): RunPlan {
  const nominal = nominalPlan(spec);
  // Planning begins shortly after acceptance and the gap counts towards the planning time, so
  // the statuses' perturbed lengths alone add up to the completion time.
  const planningMs = perturb(spec, nominal.planningMs, 'planning');
  const planningAtMs = Math.min(2000, Math.round(planningMs * rngFor(spec.seed, 'planning-start').uniform(0.05, 0.3)));
  const reservingAtMs = planningMs;
  const provisioningAtMs = reservingAtMs + perturb(spec, nominal.reservingMs, 'reserving');
  const runningAtMs = provisioningAtMs + perturb(spec, nominal.provisioningMs, 'provisioning');
  const base = { planningAtMs, reservingAtMs, provisioningAtMs, runningAtMs };

  if (spec.kind === 'custom') {
    return { ...base, phases: [], steps: [], exportWindow: null, endMs: runningAtMs + perturb(spec, nominal.evaluationMs, 'custom-run') };
  }

  const prefix = tasksetPrefix(spec.taskset);
  const heldOut = Array.from({ length: spec.evaluationTasks }, (_, i) => heldOutTaskId(prefix, i));
  const phases: PlannedPhase[] = [];
  let steps: PlannedStep[] = [];
  let at = runningAtMs;
  const train = spec.mode === 'train';
  if (train) {
    phases.push(evaluationPhase(spec, 'baseline', heldOut, at, perturb(spec, nominal.baselineMs, 'baseline'), 0));
    at = phases[0].endMs;
    const trainingMs = perturb(spec, nominal.trainingMs, 'training');
    steps = trainingSteps(spec, at, trainingMs);
    phases.push({ phase: 'training', startMs: at, endMs: at + trainingMs, tasks: steps.length, attempts: steps.flatMap((s) => s.attempts) });
    at += trainingMs;
  }
  const evaluation = evaluationPhase(spec, 'evaluation', heldOut, at, perturb(spec, nominal.evaluationMs, 'evaluation'), train ? spec.trainingSteps : 0);
  phases.push(evaluation);
  at = evaluation.endMs;
  const exportWindow = train ? { startMs: at, endMs: at + perturb(spec, nominal.exportMs, 'export') } : null;
  return { ...base, phases, steps, exportWindow, endMs: exportWindow?.endMs ?? at };
}
