import t from '../helpers/tap.js';
import { gradingPlanSha256, simulate } from '../../server/simulator/index.js';
import { componentErrors } from '../helpers/contract.js';
import { evaluateSpec, itemsOf, latestReceipts, lifecycle, rlEvents, specFor } from './fixtures.js';

t.test('one receipt per final-evaluation attempt: pending, then settled', async (t) => {
  const spec = specFor({ evaluationTasks: 64, seed: 3, simulation: { infrastructure_failure_rate: 0.1, error_rate: 0.05 } });
  const tl = simulate(spec, []);
  const receipts = itemsOf(tl, 'receipt');
  const evaluation = rlEvents(tl).filter((i) => i.event.phase === 'evaluation' && i.event.kind === 'task_completed');
  t.ok(evaluation.length > 64, 'errored attempts were retried as new attempts');
  t.equal(new Set(evaluation.filter((e) => e.event.outcome !== 'error').map((e) => e.event.task_id)).size, 64, 'every task scored once');
  t.equal(receipts.length, 2 * evaluation.length, 'a pending and a final item per attempt');
  t.equal(latestReceipts(tl).length, evaluation.length);
  t.same(receipts.flatMap((r) => componentErrors('RLGradingReceipt', r.receipt)), [], 'every receipt conforms');

  const planSha = gradingPlanSha256(spec, 1);
  const phaseEnd = lifecycle(tl, 'rl.phase_completed').find((e) => e.payload.phase === 'evaluation')!.atMs;
  for (const e of evaluation) {
    const first = receipts.find((r) => r.receipt.task_id === e.event.task_id && r.atMs === e.atMs)!;
    const mine = receipts.filter((r) => r.receipt.attempt_id === first.receipt.attempt_id);
    t.equal(mine.length, 2);
    const [pending, final] = mine;
    t.equal(pending.atMs, e.atMs, 'pending when the attempt completes');
    t.same([pending.receipt.state, pending.receipt.cleanup_complete, pending.receipt.reward, pending.receipt.infrastructure_code], ['pending', false, undefined, undefined]);
    t.ok(final.atMs >= pending.atMs && final.atMs <= phaseEnd, 'settled before the phase ends');
    t.equal(final.receipt.attempt_id, pending.receipt.attempt_id);
    t.equal(final.receipt.cleanup_complete, true);
    t.equal(final.receipt.plan_sha256, planSha);
    t.match(final.receipt.attempt_id, /^gat_[0-9a-f]{24}$/);
    t.match(final.receipt.request_id, /^grq_[0-9a-f]{24}$/);
    if (final.receipt.state === 'completed') {
      t.equal(final.receipt.reward, e.event.outcome === 'passed' ? 1 : 0, 'reward follows the outcome');
      t.equal(final.receipt.infrastructure_code, undefined);
    } else {
      t.equal(final.receipt.state, 'infrastructure_failure');
      t.equal(final.receipt.reward, undefined, 'no reward on infrastructure failure');
      t.ok(final.receipt.infrastructure_code, 'a failure names its code');
    }
    if (e.event.outcome === 'error') t.equal(final.receipt.infrastructure_code, 'output_incomplete', 'an errored attempt has no candidate to grade');
  }
  const failures = latestReceipts(tl).filter((r) => r.state === 'infrastructure_failure' && r.infrastructure_code !== 'output_incomplete');
  t.ok(failures.length > 0 && failures.length < 20, `a small seeded share of infrastructure failures (${failures.length}/${evaluation.length})`);
  t.equal(new Set(latestReceipts(tl).map((r) => r.attempt_id)).size, evaluation.length, 'attempt ids are distinct');
  t.equal(new Set(latestReceipts(tl).map((r) => r.request_id)).size, evaluation.length, 'request ids are distinct');
});

t.test('receipts hash the attempt reply and are deterministic', async (t) => {
  const spec = specFor({ includeTraces: true });
  const tl = simulate(spec, []);
  const { createHash } = await import('node:crypto');
  const replies = new Set(rlEvents(tl).filter((i) => i.event.phase === 'evaluation' && i.event.kind === 'task_completed').map((i) => `${i.event.task_id} ${createHash('sha256').update(i.event.output!).digest('hex')}`));
  for (const r of latestReceipts(tl)) t.ok(replies.has(`${r.task_id} ${r.candidate_sha256}`), 'the candidate is the hash of one of its task\'s replies');
  t.equal(latestReceipts(tl).length, replies.size, 'one receipt per attempt');
  t.same(latestReceipts(simulate(specFor({ includeTraces: false }), [])).map((r) => r.candidate_sha256), latestReceipts(tl).map((r) => r.candidate_sha256), 'the candidate does not depend on whether traces are shown');
});

t.test('no receipts without private grading; evaluate mode grades its one evaluation', async (t) => {
  t.equal(itemsOf(simulate(specFor({ privateGrading: false }), []), 'receipt').length, 0);
  const evaluate = simulate(evaluateSpec({ evaluationTasks: 20 }), []);
  t.equal(latestReceipts(evaluate).length, rlEvents(evaluate).filter((i) => i.event.kind === 'task_completed').length, 'one per attempt');
});

t.test('the plan hash is per workload and revision', async (t) => {
  const spec = specFor();
  t.match(gradingPlanSha256(spec, 1), /^[0-9a-f]{64}$/);
  t.equal(gradingPlanSha256(spec, 1), gradingPlanSha256(structuredClone(spec), 1));
  t.not(gradingPlanSha256(spec, 1), gradingPlanSha256(spec, 2));
  t.not(gradingPlanSha256(spec, 1), gradingPlanSha256(specFor({ workloadId: 'wl_other' }), 1));
});
