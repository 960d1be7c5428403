import t from '../helpers/tap.js';
import { advance, launchRun, legCounting, workloadCount } from '../helpers/rl.js';
import { freshKey, startServer, type CallOptions, type CallResult, type TestServer } from '../helpers/server.js';

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

async function ok(s: TestServer, method: string, path: string, options: CallOptions) {
  const res = await s.call(method, path, options);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** Gives `key`'s tenant real state (a finished run, a recovered one with its events, an asset) and answers its snapshot. */
async function tenantWithState(s: TestServer, key: string) {
  await launchRun(s, legCounting({ evaluation_tasks: 6, seed: 5 }), 'restorer-done', key);
  await advance(s, 4000, key);
  const recovered = await launchRun(s, legCounting({ evaluation_tasks: 8, seed: 9 }), 'restorer-recovered', key);
  await advance(s, 120, key);
  await ok(s, 'POST', `/_mock/workloads/${recovered.id}/recover`, { key, body: { replay_last: 2 } });
  await ok(s, 'POST', '/v1/assets/upload?name=data.txt', { key, raw: 'rows\n'.repeat(1000), headers: { 'content-type': 'application/octet-stream' } });
  await advance(s, 30, key);
  return ok(s, 'GET', '/_mock/snapshot', { key });
}

/** Every workload id of the calling tenant, page by page. */
async function workloadIds(s: TestServer): Promise<string[]> {
  const ids: string[] = [];
  for (let offset: number | undefined = 0, pages = 0; offset !== undefined && pages < 100; pages++) {
    const page = await ok(s, 'GET', `/v1/workloads?limit=100&offset=${offset}`, {});
    ids.push(...page.workloads.map((w: { id: string }) => w.id));
    offset = page.next_offset;
  }
  return ids;
}

t.test('a restore in another tenant during a launch storm loses and duplicates no acknowledged launch', async (t) => {
  // A manual clock: the restored tenant's reads afterwards are the document's, not a later now's.
  const s = await startServer(t, { clock: 'manual' });
  const restorer = freshKey();
  const doc = await tenantWithState(s, restorer);
  const { tables } = doc.tenant;
  t.ok(tables.workloads.length === 2 && tables.rl_events.length > 0 && tables.workload_interventions.length > 0 && tables.asset_contents.length === 1,
    'the restored document holds runs, their events, an intervention and an asset');

  const preview = await ok(s, 'POST', '/v1/rl-runs/preview', { body: legCounting() });
  const body = { ...preview.configuration, review_token: preview.review_token };
  // The storm goes on, wave after wave of fresh keys, until the last restore is answered.
  const RESTORES = 6;
  const SENDS = 20;
  let restoring = true;
  let inFlight = 0;
  const answers: { key: string; res: CallResult }[] = [];
  const keys: string[] = [];
  const storm = (async () => {
    for (let wave = 0; wave < 100 && restoring; wave++) {
      const waveKeys = Array.from({ length: 5 }, (_, i) => `storm-${wave}-${i}`);
      keys.push(...waveKeys);
      answers.push(...await Promise.all(waveKeys.flatMap((key) => Array.from({ length: SENDS }, async () => {
        inFlight++;
        try {
          return { key, res: await s.call('POST', '/v1/rl-runs', { body, headers: { 'idempotency-key': key } }) };
        } finally {
          inFlight--;
        }
      }))));
    }
  })();
  const restores: { status: number; text: string; launchesInFlight: number }[] = [];
  try {
    for (let i = 0; i < RESTORES; i++) {
      const res = await s.call('PUT', '/_mock/snapshot', { key: restorer, body: doc });
      restores.push({ status: res.status, text: res.text, launchesInFlight: inFlight });
    }
  } finally {
    restoring = false;
    await storm;
  }

  t.same(restores.filter((r) => r.status !== 200), [], 'every restore is a 200');
  const underFire = restores.filter((r) => r.launchesInFlight > 0).length;
  t.ok(underFire >= RESTORES / 2, `${underFire} of ${RESTORES} restores answered with launches in flight (${restores.map((r) => r.launchesInFlight).join(', ')})`);
  t.same([...new Set(answers.map((a) => a.res.status))], [202], 'every launch is a 202');
  const idsByKey = new Map<string, Set<string>>();
  for (const { key, res } of answers) idsByKey.set(key, (idsByKey.get(key) ?? new Set()).add(res.body.id));
  t.same([...idsByKey].filter(([, ids]) => ids.size !== 1).map(([key]) => key), [], 'each key maps to one workload');
  const acknowledged = [...idsByKey.values()].flatMap((ids) => [...ids]);
  t.same((await workloadIds(s)).sort(), [...acknowledged].sort(), 'the storming tenant holds exactly the acknowledged workloads');
  t.equal(acknowledged.length, keys.length, 'one workload per key');
  const unread: string[] = [];
  for (const id of acknowledged) if ((await s.call('GET', `/v1/workloads/${id}`)).status !== 200) unread.push(id);
  t.same(unread, [], 'every acknowledged workload reads');
  t.equal(answers.filter((a) => a.res.headers.get('idempotent-replayed') === 'true').length, keys.length * (SENDS - 1), 'the rest replayed');
  const forgotten: string[] = [];
  for (const [key, ids] of idsByKey) {
    const retry = await s.call('POST', '/v1/rl-runs', { body, headers: { 'idempotency-key': key } });
    if (retry.status !== 202 || retry.body.id !== [...ids][0] || retry.headers.get('idempotent-replayed') !== 'true') forgotten.push(key);
  }
  t.same(forgotten, [], 'a retry of every key afterwards replays its workload');

  const after = await ok(s, 'GET', '/_mock/snapshot', { key: restorer });
  // A restore is journaled once it has run, as the tenant's own control call: the last one's row is the one the document lacks.
  const restored = after.tenant.tables;
  const journal = restored.request_journal.filter((r: { kind: string; path: string }) => !(r.kind === 'control' && r.path === '/_mock/snapshot'));
  t.equal(restored.request_journal.length - journal.length, 1, 'the journal holds the last restore');
  t.same({ ...after, created_at: null, tenant: { ...after.tenant, tables: { ...restored, request_journal: journal } } }, { ...doc, created_at: null }, 'the restoring tenant holds the document, row for row');
});
