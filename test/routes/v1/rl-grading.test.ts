import { createHash } from 'node:crypto';
import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { attempt, drainChecked, gradingProblems, ingest, submitCustom } from '../../helpers/evidence.js';
import { advance, launchRun, legCounting, secondsToFinish } from '../../helpers/rl.js';
import { freshKey, startInProcess, type TestServer } from '../../helpers/server.js';

const results = (s: TestServer, id: string, query = '?revision=1', key?: string) =>
  s.call('GET', `/v1/workloads/${id}/rl-grading-results${query}`, { key });

/** The rules every receipt obeys, whatever its state. */
function receiptRules(receipts: any[]): string[] {
  return receipts.flatMap((r) => [
    ...(r.reward !== undefined && r.state !== 'completed' ? [`${r.attempt_id}: reward on ${r.state}`] : []),
    ...(r.infrastructure_code !== undefined && r.state !== 'infrastructure_failure' ? [`${r.attempt_id}: code on ${r.state}`] : []),
    ...(r.state === 'completed' && !(r.reward >= 0 && r.reward <= 1) ? [`${r.attempt_id}: completed without a reward in 0-1`] : []),
  ]);
}

const hex = (c: string) => c.repeat(64);
/** A completed receipt; `extra` may set a field to undefined to leave it out. */
const receipt = (attemptId: string, extra: Record<string, unknown> = {}) => JSON.parse(JSON.stringify({
  attempt_id: attemptId, request_id: `req-${attemptId}`, task_id: `task-${attemptId}`,
  candidate_sha256: hex('a'), plan_sha256: hex('b'), manifest_sha256: hex('c'),
  state: 'completed', reward: 0.25, cleanup_complete: true, ...extra,
}));

/**
 * Moves the clock until `done` holds: 5 s at a time until provisioning, then 0.25 s, finer than
 * the shortest time a receipt stays pending (an 8-task evaluation lasts about 6 s, and a retried
 * attempt shortens the others, so the first can settle within 5 s of running).
 */
async function stepUntil(s: TestServer, id: string, done: (status: string, grading: any) => boolean, each: (status: string, grading: any) => void = () => {}) {
  for (let i = 0; i < 1000; i++) {
    const grading = await results(s, id);
    const status = (await s.call('GET', `/v1/workloads/${id}`)).body.status;
    each(status, grading);
    if (done(status, grading)) return grading;
    await advance(s, status === 'running' || status === 'provisioning' ? 0.25 : 5);
  }
  throw new Error('the run never got there');
}

t.test('a privately graded run: receipts go from pending to settled over virtual time', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id } = await launchRun(s, legCounting({ evaluation_tasks: 8 }));
  const first = await results(s, id);
  t.equal(first.status, 200);
  t.equal(first.headers.get('cache-control'), 'no-store');
  t.match(first.body, { schema_version: 1, workload_id: id, revision: 1, parent_status: 'accepted', receipts: [], grading_cleanup_complete: true });

  const seen = new Map<string, string[]>();
  const problems: string[] = [];
  await stepUntil(s, id, (status) => status === 'completed', (status, res) => {
    problems.push(...gradingProblems(res), ...receiptRules(res.body.receipts));
    if (res.body.parent_status !== status) problems.push(`parent_status ${res.body.parent_status}, workload ${status}`);
    const pending = res.body.receipts.some((r: any) => !r.cleanup_complete);
    if (res.body.grading_cleanup_complete === pending) problems.push('grading_cleanup_complete disagrees with the receipts');
    for (const r of res.body.receipts) {
      const states = seen.get(r.attempt_id) ?? [];
      if (states[states.length - 1] !== r.state) seen.set(r.attempt_id, [...states, r.state]);
    }
  });
  t.same(problems, [], 'every snapshot conforms, satisfies the strict SDK and the receipt rules');

  const final = await results(s, id);
  t.equal(final.body.parent_status, 'completed');
  const evaluationAttempts = (await s.call('GET', `/v1/workloads/${id}/rl-summary`)).body.phases.evaluation.attempts;
  t.equal(final.body.receipts.length, evaluationAttempts, 'one receipt per evaluation attempt, retries included');
  t.ok(final.body.receipts.every((r: any) => r.state !== 'pending' && r.cleanup_complete), 'all settled');
  t.equal(final.body.grading_cleanup_complete, true);
  t.same([...seen.values()].filter((states) => !(states.length === 2 && states[0] === 'pending')), [], 'every receipt was seen pending, then settled');
  t.ok(final.body.receipts.every((r: any) => r.plan_sha256 === final.body.plan_sha256));

  // Creation order is the order the attempts completed, ties by attempt id.
  // A retried task's receipts follow its attempts' completions; compare by each task's first.
  const completedAt = new Map<string, number>();
  for (const row of (await drainChecked(s, id)).rows) {
    if (row.event.phase === 'evaluation' && row.event.kind === 'task_completed' && !completedAt.has(row.event.task_id)) completedAt.set(row.event.task_id, Date.parse(row.received_at));
  }
  const firsts = final.body.receipts.filter((r: any, i: number, all: any[]) => all.findIndex((x) => x.task_id === r.task_id) === i);
  const order = [...firsts].sort((a, b) => completedAt.get(a.task_id)! - completedAt.get(b.task_id)! || (a.attempt_id < b.attempt_id ? -1 : 1));
  t.same(firsts.map((r: any) => r.attempt_id), order.map((r: any) => r.attempt_id));
});

t.test('parent_status is read in the same snapshot: a cancel settles pending receipts', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id } = await launchRun(s, legCounting({ evaluation_tasks: 8 }));
  const res = await stepUntil(s, id, (_, grading) => grading.body.receipts.some((r: any) => r.state === 'pending'));
  t.equal(res.body.grading_cleanup_complete, false, 'pending receipts: cleanup not complete');
  await s.call('POST', `/v1/workloads/${id}/cancel`);
  const after = await results(s, id);
  t.equal(after.body.parent_status, 'cancelled');
  t.same(gradingProblems(after), []);
  t.ok(after.body.receipts.every((r: any) => r.state !== 'pending'));
  t.ok(after.body.receipts.some((r: any) => r.infrastructure_code === 'execution_cancelled' && r.reward === undefined));
});

t.test('revision is required, in range, alone and once; unknown plans and tenants are 404', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id } = await launchRun(s, legCounting());
  for (const q of ['', '?revision=0', '?revision=2147483648', '?revision=abc', '?revision=1.0', '?revision=1e0', '?revision=', '?revision=1&revision=1', '?revision=1&limit=5', '?limit=5']) {
    const res = await results(s, id, q);
    t.equal(res.status, 400, q);
    t.equal(res.body.error, 'invalid_revision', `${q}: ${res.body.message}`);
    conforms(t, 'GET', '/v1/workloads/{id}/rl-grading-results', res);
  }
  const missing = await results(s, id, '?revision=2147483647');
  t.equal(missing.status, 404, 'no plan for that revision');
  t.equal(missing.body.error, 'not_found');
  t.equal((await results(s, id, '?revision=1', freshKey())).status, 404, "another tenant's workload");
  t.equal((await results(s, await submitCustom(s))).status, 404, 'a custom run has no plan until one is put');
});

t.test('PUT grading-plan: given receipts are kept as they are, in attempt id order', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id, preview } = await launchRun(s, legCounting({ evaluation_tasks: 8 }));
  const given = [receipt('z'), receipt('m', { state: 'pending', reward: undefined, cleanup_complete: false }),
    receipt('a', { state: 'infrastructure_failure', reward: undefined, infrastructure_code: 'grading_unavailable' })];
  const put = await s.call('PUT', `/_mock/workloads/${id}/grading-plan`, { body: { receipts: given } });
  t.equal(put.status, 200);
  t.match(put.body, { revision: 1, plan_sha256: hex('b'), source: 'given' });
  await advance(s, secondsToFinish(preview));
  const res = await results(s, id);
  t.same(gradingProblems(res), []);
  t.same(res.body.receipts, [given[2], given[1], given[0]], 'stored as given; the simulator no longer writes them');
  t.equal(res.body.grading_cleanup_complete, false);

  const back = await s.call('PUT', `/_mock/workloads/${id}/grading-plan`, { body: {} });
  t.match(back.body, { source: 'simulated' });
  const simulated = await results(s, id);
  t.same(gradingProblems(simulated), []);
  t.equal(simulated.body.receipts.length, (await s.call('GET', `/v1/workloads/${id}/rl-summary`)).body.phases.evaluation.attempts, 'without receipts a recipe run gets its simulated ones back');
  t.ok(simulated.body.receipts.every((r: any) => r.state !== 'pending'));

  const two = await s.call('PUT', `/_mock/workloads/${id}/grading-plan`, { body: { revision: 2, receipts: [receipt('x')] } });
  t.match(two.body, { revision: 2 });
  t.same((await results(s, id, '?revision=2')).body.receipts, [receipt('x')], 'a plan per revision');
  t.equal((await results(s, id)).body.receipts.length, simulated.body.receipts.length, 'revision 1 untouched');
});

t.test('PUT grading-plan refuses receipts the contract forbids', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  const bad: Array<[string, unknown]> = [
    ['a reward on a pending receipt', { state: 'pending', cleanup_complete: false }],
    ['a reward on a failure', { state: 'infrastructure_failure', infrastructure_code: 'execution_lost' }],
    ['a code on a completed receipt', { infrastructure_code: 'execution_lost' }],
    ['a reward above 1', { reward: 1.5 }],
    ['a hash that is not hex64', { plan_sha256: 'B'.repeat(64) }],
    ['an empty attempt id', { attempt_id: '' }],
    ['an unknown code', { state: 'infrastructure_failure', reward: undefined, infrastructure_code: 'oops' }],
  ];
  for (const [what, extra] of bad) {
    const res = await s.call('PUT', `/_mock/workloads/${id}/grading-plan`, { body: { receipts: [receipt('a', extra as never)] } });
    t.equal(res.status, 400, what);
  }
  const twice = await s.call('PUT', `/_mock/workloads/${id}/grading-plan`, { body: { receipts: [receipt('a'), receipt('a')] } });
  t.equal(twice.status, 400);
  t.match(twice.body.message, 'repeats receipts.0.attempt_id');
  t.equal((await results(s, id)).status, 404, 'nothing was stored');
});

t.test('PUT grading-plan without receipts on a custom run derives them from its evaluation attempts', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  await ingest(s, id, [
    ...attempt('evaluation', 'p', 1, 'passed', { output: 'Answer: 4' }),
    ...attempt('evaluation', 'f', 1, 'failed'),
    ...attempt('evaluation', 'e', 1, 'error'),
    attempt('evaluation', 'running', 1, 'passed')[0],
    ...attempt('baseline', 'p', 1, 'passed'),
  ]);
  const put = await s.call('PUT', `/_mock/workloads/${id}/grading-plan`, { body: {} });
  t.match(put.body, { source: 'derived', revision: 1 });
  const res = await results(s, id);
  t.same(gradingProblems(res), []);
  const byTask = Object.fromEntries(res.body.receipts.map((r: any) => [r.task_id, r]));
  t.same(Object.keys(byTask).sort(), ['e', 'f', 'p'], 'finished evaluation attempts only');
  t.match(byTask.p, { state: 'completed', reward: 1, candidate_sha256: createHash('sha256').update('Answer: 4').digest('hex') });
  t.match(byTask.f, { state: 'completed', reward: 0 });
  t.match(byTask.e, { state: 'infrastructure_failure', infrastructure_code: 'output_incomplete' });
  t.notOk('reward' in byTask.e);
  t.equal(res.body.grading_cleanup_complete, true);
  const again = await s.call('PUT', `/_mock/workloads/${id}/grading-plan`, { body: {} });
  t.same(again.body, put.body, 'derived deterministically');
});

t.test('receipts naming another plan make the snapshot unverifiable: 500 grading_results_unavailable', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  await s.call('PUT', `/_mock/workloads/${id}/grading-plan`, { body: { plan_sha256: hex('d'), receipts: [receipt('a')] } });
  const res = await results(s, id);
  t.equal(res.status, 500);
  t.equal(res.body.error, 'grading_results_unavailable');
  conforms(t, 'GET', '/v1/workloads/{id}/rl-grading-results', res);
});
