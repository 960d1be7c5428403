import { digestParts } from './random.js';
import type { RLPhase } from './types.js';

/**
 * The event id the SDK's RLEventEmitter derives: "nre_" + the first 32 hex digits of SHA-256 over
 * (namespace, task_id, attempt as decimal text, phase, kind), each part written as
 * `<UTF-8 byte length in decimal>:<the part>` and concatenated. Using the emitter's own encoding
 * means a workload that reports through the real SDK with NODUS_WORKLOAD_ID as namespace gets the
 * same ids as the simulator; repeats of one attempt (recovery replays) reuse the id.
 */
export function rlEventId(namespace: string, taskId: string, attempt: number, phase: RLPhase, kind: string): string {
  return `nre_${digestParts(namespace, taskId, String(attempt), phase, kind).slice(0, 32)}`;
}

/** Workload event ids: unique per workload, stable under interventions recorded later. */
export function lifecycleEventId(workloadId: string, generation: number, ordinal: number): string {
  return `wev_${digestParts('workload-event', workloadId, generation, ordinal).slice(0, 32)}`;
}
