import type { ComputeGroup, ComputeItem } from '../../../openapi/compute.js';
import type { ComputeEntry, SweepGroup } from '../../domain/compute/service.js';
import { isoTime } from '../../domain/clock.js';

const maybeTime = (ms: number | null) => (ms === null ? null : isoTime(ms));

export const groupView = (group: SweepGroup): ComputeGroup => ({
  id: group.id,
  sweep_id: group.sweepId,
  kind: 'sweep',
  size: group.size,
  running: group.running,
  succeeded: group.succeeded,
  failed: group.failed,
});

/** No launch is attributed on the mock: every item reports the client `api` and no member or key. */
export const itemView = (entry: ComputeEntry): ComputeItem => ({
  id: entry.id,
  type: 'training',
  name: entry.name,
  gpu: entry.gpu,
  gpu_count: entry.gpuCount,
  gpu_memory_gb: null,
  state: entry.state,
  status_text: entry.statusText,
  created_at: isoTime(entry.createdAtMs),
  started_at: maybeTime(entry.startedAtMs),
  ended_at: maybeTime(entry.endedAtMs),
  launched_by: { client: 'api', user_id: null, user_name: null, api_key_id: null, api_key_name: null },
  group: entry.group === null ? null : groupView(entry.group),
  resource: entry.resource,
});
