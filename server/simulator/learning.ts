import { rngFor } from './random.js';
import type { SimSpec } from './types.js';

/**
 * How the simulated model learns. Pass probabilities live on the logit scale: each task gets a
 * seeded difficulty around the recipe's base pass rate, and training adds a seeded per-task share
 * of the lift from base to trained rate, growing with the steps taken and saturating. The same
 * task keeps its difficulty in baseline and final evaluation, so the comparison is paired, yet
 * each attempt is an independent draw: evaluation usually beats baseline, not always.
 */

/** Spread of task difficulty around the recipe's mean (logit standard deviation). */
const DIFFICULTY_SPREAD = 0.9;
/** Steps for training to reach 1 - 1/e of its lift; ~96% after 20 steps, all of it after 40. */
const LEARNING_STEPS = 6;

const clampP = (p: number) => Math.min(0.995, Math.max(0.005, p));
const logit = (p: number) => Math.log(clampP(p) / (1 - clampP(p)));
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** Share of the recipe's base-to-trained lift reached after `steps` steps: monotone, saturating. */
export const trainingProgress = (steps: number) => 1 - Math.exp(-Math.max(0, steps) / LEARNING_STEPS);

type LearningInput = Pick<SimSpec, 'seed' | 'simulation'>;

function taskTraits(spec: LearningInput, taskId: string) {
  const rng = rngFor(spec.seed, 'task-traits', taskId);
  return { difficulty: DIFFICULTY_SPREAD * rng.normal(), liftShare: rng.uniform(0.4, 1.6) };
}

/** Pass probability of one task for a model that took `steps` training steps (0 = base model). */
export function passProbability(spec: LearningInput, taskId: string, steps: number): number {
  const { difficulty, liftShare } = taskTraits(spec, taskId);
  const sim = spec.simulation;
  const lift = logit(sim.trained_pass_rate) - logit(sim.base_pass_rate);
  return sigmoid(logit(sim.base_pass_rate) + difficulty + lift * liftShare * trainingProgress(steps));
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * GRPO loss and KL to the reference model after a step: the loss falls noisily from ~0.45 towards
 * ~0.12; the KL starts near zero and rises towards ~0.035 as the adapter moves away.
 */
export function stepMetrics(spec: LearningInput, step: number): { loss: number; kl: number } {
  const rng = rngFor(spec.seed, 'step-metrics', step);
  const loss = (0.12 + 0.33 * Math.exp(-(step - 1) / 12)) * (1 + 0.15 * rng.normal());
  const kl = (0.0005 + 0.035 * (1 - Math.exp(-step / 18))) * (1 + 0.12 * rng.normal());
  return { loss: round6(Math.max(0.005, loss)), kl: round6(Math.max(0.0001, kl)) };
}
