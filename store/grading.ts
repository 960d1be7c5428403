import type { Db } from './db.js';

interface GradingPlanRow {
  revision: number;
  planSha256: string;
  simulated: boolean;
  createdAtMs: number;
}

export function createGradingStore(db: Db) {
  const upsertPlan = db.prepare(
    `INSERT INTO grading_plans (workload_id, revision, plan_sha256, simulated, created_at_ms) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (workload_id, revision) DO UPDATE SET plan_sha256 = excluded.plan_sha256, simulated = excluded.simulated`,
  );
  const insertPlan = db.prepare('INSERT INTO grading_plans (workload_id, revision, plan_sha256, simulated, created_at_ms) VALUES (?, ?, ?, ?, ?)');
  const plan = db.prepare<[string, number], { revision: number; planSha256: string; simulated: number; createdAtMs: number }>(
    `SELECT revision, plan_sha256 AS planSha256, simulated, created_at_ms AS createdAtMs
     FROM grading_plans WHERE workload_id = ? AND revision = ?`,
  );
  const clearReceipts = db.prepare('DELETE FROM grading_receipts WHERE workload_id = ? AND revision = ?');
  const upsertReceipt = db.prepare(
    `INSERT INTO grading_receipts (workload_id, revision, attempt_id, created_at_ms, receipt) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (workload_id, revision, attempt_id) DO UPDATE SET receipt = excluded.receipt`,
  );
  const receipts = db.prepare<[string, number], { receipt: string }>(
    'SELECT receipt FROM grading_receipts WHERE workload_id = ? AND revision = ? ORDER BY created_at_ms, attempt_id',
  );
  return {
    /** The first plan of a workload being created: nothing to replace, no receipts to drop. */
    addPlan(workloadId: string, p: GradingPlanRow): void {
      insertPlan.run(workloadId, p.revision, p.planSha256, p.simulated ? 1 : 0, p.createdAtMs);
    },
    /** Creates or replaces the plan of one revision; replacing drops its receipts. */
    putPlan(workloadId: string, p: GradingPlanRow): void {
      upsertPlan.run(workloadId, p.revision, p.planSha256, p.simulated ? 1 : 0, p.createdAtMs);
      clearReceipts.run(workloadId, p.revision);
    },
    plan(workloadId: string, revision: number): GradingPlanRow | undefined {
      const row = plan.get(workloadId, revision);
      return row && { ...row, simulated: row.simulated === 1 };
    },
    /** Keeps the first creation time of an attempt's receipt; later states replace its body. */
    putReceipt(workloadId: string, revision: number, attemptId: string, createdAtMs: number, receipt: object): void {
      upsertReceipt.run(workloadId, revision, attemptId, createdAtMs, JSON.stringify(receipt));
    },
    receipts(workloadId: string, revision: number): object[] {
      return receipts.all(workloadId, revision).map((r) => JSON.parse(r.receipt) as object);
    },
  };
}
