import type { PhaseTally, PlannedStep } from './plan.js';
import type { RLPhase, SimRLEvent, SimSpec } from './types.js';

/**
 * The text of the simulated stage log. Human lines carry an ISO timestamp (added when the line is
 * placed, after interventions moved it); `nodus.rl_event` lines are bare, exactly what the SDK's
 * emitter prints, so a runner or the ingestion route can parse them back into the same events.
 */

export const RL_EVENT_PREFIX = 'nodus.rl_event ';

/** Escapes the runner's Go encoder applies; the SDK emitter writes them the same way. */
const GO_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/** `nodus.rl_event {compact JSON}`: parsing the JSON gives back exactly `event`. */
export function rlEventLine(event: SimRLEvent): string {
  // Written in the SDK emitter's key order whatever order the event came in; JSON.stringify
  // leaves the absent (undefined) fields out. A key list as JSON.stringify's replacer did the
  // same at 2.5 times the cost: a quarter of simulating a run (bench/, materialise profile).
  const text = JSON.stringify({
    event_id: event.event_id,
    phase: event.phase,
    task_id: event.task_id,
    attempt: event.attempt,
    kind: event.kind,
    outcome: event.outcome,
    reward: event.reward,
    duration_ms: event.duration_ms,
    message: event.message,
    input: event.input,
    output: event.output,
    verifier: event.verifier,
  });
  // Testing first is cheaper than replacing: only trace text can hold these characters.
  return RL_EVENT_PREFIX + (/[<>&\u2028\u2029]/.test(text) ? text.replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c]) : text);
}

export const stamped = (atMs: number, text: string) => `${new Date(atMs).toISOString()} ${text}`;

const rate = (r: number | null) => (r === null ? 'n/a' : r.toFixed(4));

export const logText = {
  stageStarted: (spec: SimSpec) => `runtime: stage ${spec.stageId} started`,
  recipe: (spec: SimSpec) =>
    `recipe ${spec.recipe ? `${spec.recipe.id}@${spec.recipe.version}` : 'custom'} mode=${spec.mode} seed=${spec.seed} ` +
    `evaluation_tasks=${spec.evaluationTasks} training_steps=${spec.trainingSteps} include_traces=${spec.includeTraces}`,
  modelLoaded: (spec: SimSpec, lora: { r: number; alpha: number; targets: readonly string[] } | null) =>
    `loaded model ${spec.model}` + (lora ? `; LoRA adapter r=${lora.r} alpha=${lora.alpha} on ${lora.targets.join(', ')}` : ''),
  phaseStarted: (spec: SimSpec, phase: RLPhase, tasks: number) =>
    phase === 'training'
      ? `== training: ${tasks} GRPO steps, ${spec.simulation.group_size} replies per group ==`
      : `== ${phase}: ${tasks} held-out tasks of ${spec.taskset}, ${spec.simulation.eval_concurrency} at a time ==`,
  phaseCompleted: (phase: RLPhase, t: PhaseTally) =>
    `${phase} done: ${t.passed} passed, ${t.failed} failed, ${t.errors} errored of ${t.attempts} attempts (pass rate ${rate(t.pass_rate)})`,
  trainingStep: (s: PlannedStep, total: number) =>
    `step ${s.step}/${total} task=${s.taskId} reward_mean=${s.rewardMean.toFixed(4)} loss=${s.loss.toFixed(4)} kl=${s.kl.toFixed(5)}`,
  comparison: (baseline: number | null, evaluation: number | null) =>
    baseline === null || evaluation === null
      ? 'comparison: not measurable (a phase scored no attempt)'
      : `comparison: baseline ${rate(baseline)} -> evaluation ${rate(evaluation)} (${((evaluation - baseline) * 100).toFixed(2)} pp)`,
  exportStarted: () => 'export: saving results and the LoRA adapter',
  exportCompleted: (outputs: readonly string[]) => `export: wrote ${outputs.join(', ')}`,
  stageCompleted: (spec: SimSpec) => `runtime: stage ${spec.stageId} completed`,
  customStarted: () => 'runtime: running the workload command',
  customProgress: (seconds: number) => `runtime: command still running (${seconds} s)`,
  customExited: () => 'runtime: command exited with status 0',
  freezing: () => 'runtime: freeze requested; saving state and releasing compute',
  resumed: () => 'runtime: resumed after freeze',
  interrupted: () => 'runtime: execution lost; recovering from the last checkpoint',
  recovered: (generation: number) => `runtime: resumed from checkpoint in generation ${generation}`,
  cancelled: () => 'runtime: cancel requested; stopping',
  failed: (reason: string) => `runtime: failed: ${reason}`,
};
