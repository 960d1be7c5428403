import type { WorkloadRow } from '../../../store/workloads.js';
import { DERIVED_IDS } from '../ids.js';
import { firstAfter } from './materialise.js';
import type { RunContext } from './run.js';
import { FIRST_GENERATION, type SimSpec } from '../../simulator/types.js';

/**
 * Checkpoints a run has written by its materialised time, derived from its timeline: a train run
 * saves its adapter and optimizer state every CHECKPOINT_EVERY_STEPS GRPO steps and after the last
 * one, and any run saves its state when a freeze completes (that is what a frozen run retains).
 * They are GET .../artifacts, the workload's `latest_checkpoint`, a placement's checkpoint and
 * restore figures and a freeze's `manifest_id` and `retained_bytes`.
 */

const CHECKPOINT_EVERY_STEPS = 5;

export interface Checkpoint {
  manifestId: string;
  stageId: string;
  generation: number;
  /** 1, 2, ... over the whole workload. */
  sequence: number;
  atMs: number;
  trigger: 'training_step' | 'freeze';
  bytes: number;
  manifest: Record<string, unknown>;
}

/**
 * Nominal sizes of what a checkpoint holds. A train run: an r=16 LoRA adapter on q/v projections
 * of a small model in f32, its two Adam moments and the trainer's counters. An evaluation: which
 * held-out tasks are done. A custom run: its working folder, which the mock cannot see.
 */
function stateFiles(spec: SimSpec): [string, number][] {
  if (spec.kind === 'custom') return [['workspace.tar', 268_435_456]];
  if (spec.mode === 'train') return [['adapter_model.safetensors', 9_175_040], ['optimizer.pt', 18_350_336], ['trainer_state.json', 2_048]];
  return [['progress.json', 4_096]];
}

export function checkpoints(row: WorkloadRow, ctx: RunContext): Checkpoint[] {
  const { spec, timeline } = ctx;
  const files = stateFiles(spec);
  const bytes = files.reduce((sum, [, b]) => sum + b, 0);
  const out: Checkpoint[] = [];
  let generation = FIRST_GENERATION;
  let phase: unknown = null;
  const add = (atMs: number, trigger: Checkpoint['trigger'], detail: Record<string, unknown>) => {
    const sequence = out.length + 1;
    const folder = `checkpoints/${String(sequence).padStart(4, '0')}`;
    out.push({
      manifestId: DERIVED_IDS.mf(row.id, sequence),
      stageId: spec.stageId,
      generation,
      sequence,
      atMs,
      trigger,
      bytes,
      manifest: {
        schema_version: 1,
        kind: 'checkpoint',
        trigger,
        model: spec.model,
        ...detail,
        files: files.map(([name, size]) => ({ path: `${folder}/${name}`, bytes: size })),
        bytes,
      },
    });
  };
  const items = timeline.items;
  for (let i = 0, end = firstAfter(items, row.materialisedToMs); i < end; i++) {
    const item = items[i];
    if (item.kind === 'status') {
      generation = item.generation;
      if (item.status === 'frozen') add(item.atMs, 'freeze', phase === null ? {} : { phase });
    } else if (item.kind === 'lifecycle') {
      const p = item.payload;
      if (item.eventType === 'rl.phase_started') phase = p.phase;
      else if (item.eventType === 'rl.phase_completed') phase = null;
      else if (item.eventType === 'rl.training_step') {
        const step = p.step as number;
        const total = p.total_steps as number;
        if (step % CHECKPOINT_EVERY_STEPS === 0 || step === total) add(item.atMs, 'training_step', { phase: 'training', step, total_steps: total });
      }
    }
  }
  return out;
}
