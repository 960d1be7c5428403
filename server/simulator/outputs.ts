import { compareRuns } from './comparison.js';
import { planRun, tally, type PlannedAttempt, type PlannedPhase } from './plan.js';
import { rngFor } from './random.js';
import type { SimOutput, SimSpec } from './types.js';

/**
 * The files a completed recipe run publishes: results.json for every managed run and, in train
 * mode, the LoRA adapter in PEFT's layout. All bytes follow from the spec (interventions only
 * decide whether the run completed), so a download is the same whenever and however often it
 * happens.
 */

/** The simulated adapter: rank, scale and the projections it adapts. */
export const LORA = { r: 16, alpha: 32, dropout: 0.05, targets: ['q_proj', 'v_proj'] } as const;
/** A toy hidden size and depth keep the safetensors file small (32 KiB of weights) yet well formed. */
const HIDDEN = 64;
const LAYERS = 2;

export function outputNames(spec: SimSpec): string[] {
  if (spec.kind !== 'recipe') return [];
  return spec.mode === 'train' ? ['results.json', 'adapter_config.json', 'adapter_model.safetensors'] : ['results.json'];
}

const json = (value: unknown) => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');

function phaseResult(phase: PlannedPhase) {
  return {
    ...tally(phase.attempts),
    tasks: phase.attempts.map((a: PlannedAttempt) => ({ task_id: a.taskId, attempt: a.attempt, outcome: a.outcome, reward: a.reward ?? null })),
  };
}

function resultsJson(spec: SimSpec): Buffer {
  const plan = planRun(spec);
  const byPhase = (p: string) => plan.phases.find((x) => x.phase === p);
  const baseline = byPhase('baseline');
  const evaluation = byPhase('evaluation')!;
  const train = spec.mode === 'train';
  const results: Record<string, unknown> = {
    schema_version: 1,
    recipe: spec.recipe ?? null,
    model: spec.model,
    mode: spec.mode,
    seed: spec.seed,
    taskset: spec.taskset,
    configuration: {
      evaluation_tasks: spec.evaluationTasks,
      training_steps: spec.trainingSteps,
      include_traces: spec.includeTraces,
      group_size: spec.simulation.group_size,
      eval_concurrency: spec.simulation.eval_concurrency,
      ...(train ? { lora: { r: LORA.r, lora_alpha: LORA.alpha, target_modules: LORA.targets } } : {}),
    },
  };
  if (baseline) results.baseline = phaseResult(baseline);
  if (train) results.training = { steps: plan.steps.map((s) => ({ step: s.step, task_id: s.taskId, reward_mean: s.rewardMean, loss: s.loss, kl: s.kl })) };
  results.evaluation = phaseResult(evaluation);
  if (train) {
    // The summary's own function; the run's file has lost no events, so the summary of an
    // uninterrupted run without dropped events answers the same object.
    results.comparison = compareRuns(baseline!.attempts, evaluation.attempts, { dropped: 0, truncated: false });
  }
  return json(results);
}

function adapterConfig(spec: SimSpec): Buffer {
  return json({
    base_model_name_or_path: spec.model,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    lora_alpha: LORA.alpha,
    lora_dropout: LORA.dropout,
    peft_type: 'LORA',
    r: LORA.r,
    target_modules: LORA.targets,
    task_type: 'CAUSAL_LM',
  });
}

/**
 * A valid safetensors file: 8-byte little-endian header length, the JSON header (tensor dtype,
 * shape, data offsets, `__metadata__`), padded with spaces to 8 bytes, then the F32 tensors back
 * to back. lora_A is drawn like its Kaiming-uniform initialisation, lora_B small and nonzero as
 * after training from zeros.
 */
function adapterSafetensors(spec: SimSpec): Buffer {
  const tensors: Array<{ name: string; shape: [number, number]; values: () => number }> = [];
  for (let layer = 0; layer < LAYERS; layer++) {
    for (const module of LORA.targets) {
      const name = (ab: string) => `base_model.model.layers.${layer}.self_attn.${module}.lora_${ab}.weight`;
      const a = rngFor(spec.seed, 'adapter', name('A'));
      const b = rngFor(spec.seed, 'adapter', name('B'));
      const bound = 1 / Math.sqrt(HIDDEN);
      tensors.push({ name: name('A'), shape: [LORA.r, HIDDEN], values: () => a.uniform(-bound, bound) });
      tensors.push({ name: name('B'), shape: [HIDDEN, LORA.r], values: () => 0.002 * b.normal() });
    }
  }
  const header: Record<string, unknown> = {
    __metadata__: { format: 'pt', base_model: spec.model, seed: String(spec.seed), training_steps: String(spec.trainingSteps), producer: 'nodus-mock simulator' },
  };
  let offset = 0;
  for (const t of tensors) {
    const bytes = t.shape[0] * t.shape[1] * 4;
    header[t.name] = { dtype: 'F32', shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let headerText = JSON.stringify(header);
  headerText += ' '.repeat((8 - (Buffer.byteLength(headerText) % 8)) % 8);
  const headerBytes = Buffer.from(headerText, 'utf8');
  const out = Buffer.alloc(8 + headerBytes.length + offset);
  out.writeBigUInt64LE(BigInt(headerBytes.length), 0);
  headerBytes.copy(out, 8);
  let at = 8 + headerBytes.length;
  for (const t of tensors) {
    for (let i = 0; i < t.shape[0] * t.shape[1]; i++, at += 4) out.writeFloatLE(t.values(), at);
  }
  return out;
}

/** The outputs of a completed run, in publishing order. */
export function buildOutputs(spec: SimSpec): SimOutput[] {
  const build: Record<string, (s: SimSpec) => Buffer> = {
    'results.json': resultsJson,
    'adapter_config.json': adapterConfig,
    'adapter_model.safetensors': adapterSafetensors,
  };
  return outputNames(spec).map((name) => ({ name, stageId: spec.stageId, content: build[name](spec) }));
}
