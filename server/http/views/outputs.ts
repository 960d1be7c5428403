import type { Output } from '../../../openapi/workloads.js';
import type { WorkloadOutput } from '../../domain/workloads/outputs.js';

/** GET /v1/workloads/{id}/outputs: each output with where to download it from. */
export function outputListView(workloadId: string, outputs: readonly WorkloadOutput[]): { workload_id: string; outputs: Output[] } {
  return {
    workload_id: workloadId,
    outputs: outputs.map((o) => ({
      name: o.name,
      stage_id: o.stageId,
      sha256: o.sha256,
      bytes: o.content.length,
      download: `/v1/workloads/${workloadId}/outputs/${encodeURIComponent(o.name)}?stage=${encodeURIComponent(o.stageId)}`,
    })),
  };
}
