import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from '../../helpers/tap.js';
import { advance, legCounting, secondsToFinish } from '../../helpers/rl.js';
import { freshKey, startInProcess, tempDbPath, type TestServer } from '../../helpers/server.js';

async function preview(s: TestServer, configuration: Record<string, unknown>, key?: string) {
  const res = await s.call('POST', '/v1/rl-runs/preview', { body: configuration, key });
  return res.body;
}

const launch = (s: TestServer, p: any, key?: string) => s.call('POST', '/v1/rl-runs', {
  body: { ...p.configuration, review_token: p.review_token },
  headers: { 'idempotency-key': `k-${Math.random().toString(36).slice(2)}` },
  key,
});

t.test('reviews do not expire by default', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const p = await preview(s, legCounting());
  await advance(s, 3600);
  t.equal((await launch(s, p)).status, 202, 'an hour after valid_until, still launchable');
});

t.test('with review_expiry on, a launch after valid_until answers 409 review_changed', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const set = await s.call('PUT', '/_mock/levers', { body: { review_expiry: true } });
  t.same(set.body, { review_expiry: true, unrecoverable_error_rate: null });
  const p = await preview(s, legCounting());
  const validFor = (Date.parse(p.estimate.valid_until) - Date.parse((await s.call('GET', '/_mock/clock')).body.now)) / 1000;
  await advance(s, validFor);
  t.equal((await launch(s, p)).status, 202, 'at valid_until: still valid');
  await advance(s, 1);
  const late = await launch(s, p);
  t.equal(late.status, 409);
  t.equal(late.body.error, 'review_changed');
  t.match(late.body.message, /expired at .*valid_until/);
  const again = await preview(s, legCounting());
  t.equal(again.review_token, p.review_token, 'the same configuration reviews to the same token');
  t.equal((await launch(s, again)).status, 202, 'a new preview renews the review');
  const other = freshKey();
  const q = await preview(s, legCounting(), other);
  await advance(s, 3600, other);
  t.equal((await launch(s, q, other)).status, 202, 'per tenant: another key is unaffected');
});

t.test('unrecoverable_error_rate reaches the not-comparable reasons; bad values get the envelope', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const bad = await s.call('PUT', '/_mock/levers', { body: { unrecoverable_error_rate: 2 } });
  t.equal(bad.status, 400);
  t.type(bad.body.error, 'string');
  t.same((await s.call('PUT', '/_mock/levers', { body: { unrecoverable_error_rate: 1 } })).body, { review_expiry: false, unrecoverable_error_rate: 1 });
  const reasons = new Set<string>();
  let longest = 0;
  const ids: string[] = [];
  for (let seed = 0; seed < 12; seed++) {
    const p = await preview(s, legCounting({ mode: 'train', training_steps: 2, evaluation_tasks: 64, seed }));
    longest = Math.max(longest, secondsToFinish(p));
    ids.push((await launch(s, p)).body.id);
  }
  await advance(s, longest);
  for (const id of ids) reasons.add((await s.call('GET', `/v1/workloads/${id}/rl-summary`)).body.comparison.reason);
  t.ok(reasons.has('different_attempt_counts'), [...reasons].join(', '));
});

t.test('a scenario file sets the levers per key', async (t) => {
  const db = tempDbPath(t);
  const key = 'nk_test_expiring';
  const file = join(dirname(db), 'levers.json');
  writeFileSync(file, JSON.stringify({ keys: { [key]: { clock: { mode: 'manual' }, levers: { review_expiry: true } } } }));
  const s = await startInProcess(t, { db, scenario: file });
  const p = await preview(s, legCounting(), key);
  await advance(s, 16 * 60, key);
  t.equal((await launch(s, p, key)).body.error, 'review_changed');
});
