import type { WorkloadRow } from '../../../store/workloads.js';
import { canonicalJson, sha256Hex } from '../json-text.js';
import { simulatedOutputs } from '../../simulator/index.js';
import type { Materialiser } from './materialise.js';

export interface WorkloadOutput {
  name: string;
  stageId: string;
  content: Buffer;
  sha256: string;
}

/** Outputs kept at most: they are small and derived, so the oldest is simply forgotten. */
const MAX_CACHED = 64;

/** Per service instance, so two servers in one process never share what they derived. */
export function createOutputCache() {
  const cache = new Map<string, readonly WorkloadOutput[]>();
  return {
    get: (workloadId: string) => cache.get(workloadId),
    set(workloadId: string, outputs: readonly WorkloadOutput[]): void {
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
      cache.set(workloadId, Object.freeze(outputs));
    },
  };
}

export type OutputCache = ReturnType<typeof createOutputCache>;

/**
 * A custom run's declared stage outputs, as small deterministic stand-ins: the mock runs no
 * code, so it publishes a JSON note where the file would be.
 */
function declaredOutputs(row: WorkloadRow): { name: string; stageId: string; content: Buffer }[] {
  const payload = JSON.parse(row.payload) as { stages?: { id: string; outputs?: Record<string, string | { path: string }> | null }[] | null };
  return (payload.stages ?? []).flatMap((stage) =>
    Object.entries(stage.outputs ?? {}).map(([name, declared]) => ({
      name,
      stageId: stage.id,
      content: Buffer.from(
        `${canonicalJson({
          workload_id: row.id,
          stage_id: stage.id,
          name,
          path: typeof declared === 'string' ? declared : declared.path,
          note: 'nodus-mock runs no code; this file stands in for the output your command would write',
        })}\n`,
      ),
    })),
  );
}

/** What a completed workload publishes (outputs exist only for completed stages). */
export function workloadOutputs(deps: { outputs: OutputCache; materialiser: Materialiser }, row: WorkloadRow): readonly WorkloadOutput[] {
  if (row.status !== 'completed') return [];
  const cached = deps.outputs.get(row.id);
  if (cached) return cached;
  const ctx = deps.materialiser.context(row);
  const files = row.kind === 'recipe' ? simulatedOutputs(ctx.spec, ctx.interventions, ctx.timeline) : declaredOutputs(row);
  const outputs = files.map((f) => Object.freeze({ ...f, sha256: sha256Hex(f.content) }));
  deps.outputs.set(row.id, outputs);
  return outputs;
}
