import t from 'tap';
import { legCounting, workloadCount } from '../helpers/rl.js';
import { startServer } from '../helpers/server.js';

t.test('storm: 10 keys × 50 concurrent launches → exactly 10 workloads, no 5xx', async (t) => {
  const s = await startServer(t);
  const preview = (await s.call('POST', '/v1/rl-runs/preview', { body: legCounting() })).body;
  const body = { ...preview.configuration, review_token: preview.review_token };
  const keys = Array.from({ length: 10 }, (_, i) => `storm-${i}`);
  const answers = await Promise.all(
    keys.flatMap((key) => Array.from({ length: 50 }, () =>
      s.call('POST', '/v1/rl-runs', { body, headers: { 'idempotency-key': key } }).then((res) => ({ key, res })))),
  );
  t.same([...new Set(answers.map((a) => a.res.status))], [202], 'every answer is a 202');
  const idsByKey = new Map<string, Set<string>>();
  for (const { key, res } of answers) idsByKey.set(key, (idsByKey.get(key) ?? new Set()).add(res.body.id));
  for (const [key, ids] of idsByKey) t.equal(ids.size, 1, `${key} maps to one workload`);
  t.equal(new Set([...idsByKey.values()].flatMap((ids) => [...ids])).size, 10);
  t.equal(workloadCount(s), 10);
  t.equal(answers.filter((a) => a.res.headers.get('idempotent-replayed') === 'true').length, 10 * 49);
});
