import type { RLReport } from '../../../store/rl-events.js';
import { latestReports } from './summary.js';
import { pendingReceipt, settledReceipt } from '../../simulator/grading.js';
import { gradeAttempt } from '../../simulator/plan.js';
import type { Outcome } from '../../simulator/tasks.js';
import type { SimReceipt, SimSpec } from '../../simulator/types.js';

export interface DerivedReceipt {
  createdAtMs: number;
  receipt: SimReceipt;
}

/**
 * The receipts of a grading plan put without receipts, derived from what the workload reported
 * (custom runs, or any plan the simulator does not grade): one per finished evaluation attempt,
 * by its latest report, admitted when that report was received. The attempts have already
 * ended, so each is settled at once, by the simulator's own grader: ids and hashes as it derives
 * them, the reply (`output`, empty when not reported) as the candidate, an errored attempt as
 * `infrastructure_failure` / `output_incomplete`, otherwise `completed` with reward 1 or 0.
 */
export function derivedReceipts(
  spec: SimSpec,
  planSha256: string,
  evaluationReports: ReadonlyArray<RLReport & { output: string | null }>,
): DerivedReceipt[] {
  return latestReports(evaluationReports)
    .filter((r) => r.kind === 'task_completed')
    .map((r) => {
      const attempt = { phase: 'evaluation' as const, taskId: r.taskId, attempt: r.attempt, endMs: r.receivedAtMs, outcome: r.outcome as Outcome };
      const pending = pendingReceipt(spec, planSha256, attempt, r.output ?? '');
      return { createdAtMs: r.receivedAtMs, receipt: settledReceipt(pending, gradeAttempt(spec, attempt, 0)) };
    });
}
