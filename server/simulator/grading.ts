import { digestParts, sha256Hex } from './random.js';
import type { RLPhase, Settlement, SimReceipt, SimSpec } from './types.js';

/**
 * Private grading receipts. Each final-evaluation attempt of a privately graded run is submitted
 * to the platform grader when it completes (`pending`), and the grader settles it a few seconds
 * later (`completed` with a reward, or `infrastructure_failure` with a code and no reward).
 * Every id and hash is derived, so the same run always shows the same receipts.
 */

/** The grading plan's hash for one revision of a workload's plan. */
export function gradingPlanSha256(spec: SimSpec, revision: number): string {
  const recipe = spec.recipe ? `${spec.recipe.id}@${spec.recipe.version}` : 'custom';
  return digestParts('grading-plan', spec.workloadId, revision, recipe, spec.taskset, spec.evaluationTasks, spec.seed);
}

const shortId = (prefix: string, ...parts: Array<string | number>) => `${prefix}_${digestParts(...parts).slice(0, 24)}`;

/** The receipt as first admitted: pending, cleanup not done; the candidate is the model's reply. */
export function pendingReceipt(spec: SimSpec, planSha: string, a: { phase: RLPhase; taskId: string; attempt: number }, reply: string): SimReceipt {
  return {
    attempt_id: shortId('gat', 'grading-attempt', spec.workloadId, a.phase, a.taskId, a.attempt),
    request_id: shortId('grq', 'grading-request', spec.workloadId, a.phase, a.taskId, a.attempt),
    task_id: a.taskId,
    candidate_sha256: sha256Hex(reply),
    plan_sha256: planSha,
    manifest_sha256: digestParts('grading-manifest', planSha, a.taskId),
    state: 'pending',
    cleanup_complete: false,
  };
}

/** A pending receipt settled: `reward` only when completed, `infrastructure_code` only on failure. */
export function settledReceipt(pending: SimReceipt, settlement: Settlement): SimReceipt {
  return settlement.state === 'completed'
    ? { ...pending, state: 'completed', reward: settlement.reward, cleanup_complete: true }
    : { ...pending, state: 'infrastructure_failure', infrastructure_code: settlement.code, cleanup_complete: true };
}
