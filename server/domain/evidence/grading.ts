import type { z } from 'zod';
import type { GradingPlanResult, GradingPlanUpdate } from '../../../openapi/mock.js';
import type { RLGradingReceipt, RLGradingResults } from '../../../openapi/rl-evidence.js';
import type { RLReport } from '../../../store/rl-events.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { latestReports } from './summary.js';
import { gradingPlanSha256 } from '../../simulator/index.js';
import { pendingReceipt, settledReceipt } from '../../simulator/grading.js';
import { gradeAttempt } from '../../simulator/plan.js';
import type { Outcome } from '../../simulator/tasks.js';
import type { SimReceipt, SimSpec } from '../../simulator/types.js';
import type { DomainContext } from '../context.js';
import type { TenantUnit } from '../unit.js';
import { DomainError, notFound } from '../errors.js';

interface DerivedReceipt {
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
function derivedReceipts(
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

/**
 * GET /v1/workloads/{id}/rl-grading-results: one revision's receipts, with the workload status
 * of the same snapshot. Call inside the workload's transaction.
 */
export function gradingResults(unit: TenantUnit, row: WorkloadRow, revision: number): RLGradingResults {
  const plan = unit.tables.grading.plan(row.id, revision);
  if (!plan) throw notFound(`grading plan revision ${revision} of workload ${row.id}`);
  const receipts = unit.tables.grading.receipts(row.id, revision) as RLGradingReceipt[];
  // Receipts that name another plan cannot be verified against this one (PUT grading-plan
  // can store such receipts on purpose): the contract's 500 for an unverifiable snapshot.
  const foreign = receipts.find((r) => r.plan_sha256 !== plan.planSha256);
  if (foreign) {
    throw new DomainError('unverifiable', 'grading_results_unavailable',
      `receipt ${foreign.attempt_id} names plan ${foreign.plan_sha256}, not revision ${revision}'s plan ${plan.planSha256}: the snapshot cannot be verified`);
  }
  return {
    schema_version: 1 as const,
    workload_id: row.id,
    revision,
    plan_sha256: plan.planSha256,
    parent_status: row.status,
    grading_cleanup_complete: receipts.every((r) => r.cleanup_complete),
    receipts,
  };
}

/**
 * PUT /_mock/workloads/{id}/grading-plan: creates or replaces one revision's plan with the given
 * receipts, the simulator's (revision 1 of a privately graded recipe run) or ones derived from
 * the reported evaluation attempts, created at `nowMs` (the unit's now, or when a workload rule's
 * trigger came). Call inside the workload's transaction.
 */
export function putGradingPlan(
  deps: Pick<DomainContext, 'materialiser'>,
  unit: TenantUnit,
  row: WorkloadRow,
  update: z.output<typeof GradingPlanUpdate>,
  nowMs: number,
): z.infer<typeof GradingPlanResult> {
  const { materialiser } = deps;
  const { tables } = unit;
  const { spec } = materialiser.context(row);
  const { receipts: given, plan_sha256: planHash } = update;
  const revision = update.revision ?? row.revision;
  // The simulator grades revision 1 of a privately graded recipe run; it can have that back.
  const source = given ? 'given' : spec.privateGrading && revision === 1 ? 'simulated' : 'derived';
  const planSha256 = planHash ?? given?.[0]?.plan_sha256 ?? gradingPlanSha256(spec, revision);
  const grading = tables.grading;
  grading.putPlan(row.id, { revision, planSha256, simulated: source === 'simulated', createdAtMs: nowMs });
  if (source === 'simulated') materialiser.restoreSimulatedReceipts(unit, row);
  // Given receipts are all created now, so they list by attempt id; simulated ones were restored above.
  const receipts = given?.map((receipt) => ({ createdAtMs: nowMs, receipt }))
    ?? (source === 'derived' ? derivedReceipts(spec, planSha256, tables.rlEvents.phaseReports(row.id, 'evaluation')) : []);
  for (const r of receipts) grading.putReceipt(row.id, revision, r.receipt.attempt_id, r.createdAtMs, r.receipt);
  return { workload_id: row.id, revision, plan_sha256: planSha256, source, receipts: grading.receipts(row.id, revision) as RLGradingReceipt[] };
}
