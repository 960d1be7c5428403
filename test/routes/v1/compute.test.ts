import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { advance } from '../../helpers/rl.js';
import { computePageProblems, iterateAll } from '../../helpers/sdk-compute.js';
import { freshKey, startInProcess, type TestServer } from '../../helpers/server.js';

const customRun = (extra: Record<string, unknown> = {}) => ({
  requirements: { gpu: 'H100', gpu_count: 1, expected_runtime_hours: 1 },
  outcome: {},
  continuity: { mode: 'checkpointed', resume_on_interruption: true },
  source: { image: 'python:3.11-slim', command: ['python', 'train.py'] },
  ...extra,
});

async function submit(s: TestServer, extra: Record<string, unknown> = {}, key?: string): Promise<string> {
  const res = await s.call('POST', '/v1/workloads', { body: customRun(extra), headers: { 'idempotency-key': `k-${Math.random()}` }, key });
  if (res.status !== 202) throw new Error(`submit: ${res.status} ${res.text}`);
  return res.body.id;
}

const page = async (s: TestServer, query: string) => {
  const res = await s.call('GET', `/v1/compute${query}`);
  return res;
};

t.test('training newest first; runs sharing a sweep_id are one sweep_ item with the group\'s counts', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const lone = await submit(s, { name: 'baseline' });
  await advance(s, 10);
  const sweepRuns = [await submit(s, { sweep_id: 'lr' }), await submit(s, { sweep_id: 'lr' })];
  await advance(s, 10);
  const late = await submit(s);
  await advance(s, 200);

  const res = await page(s, '');
  t.equal(res.status, 200);
  conforms(t, 'GET', '/v1/compute', res);
  t.same(computePageProblems(res.body), []);
  t.same(res.body.items.map((i: { id: string }) => i.id), [late, 'sweep_lr', lone], 'newest first, the sweep once');
  const sweep = res.body.items[1];
  t.match(sweep, {
    type: 'training', name: 'lr', gpu: 'H100', gpu_count: 1, state: 'running',
    resource: { kind: 'sweep', id: 'lr' }, group: { id: 'sweep_lr', sweep_id: 'lr', kind: 'sweep', size: 2, running: 2, succeeded: 0, failed: 0 },
    launched_by: { client: 'api', user_id: null },
  });
  t.match(res.body.items[2], { name: 'baseline', group: null, resource: { kind: 'workload', id: lone }, state: 'running', ended_at: null });
  t.ok(res.body.items[2].started_at, 'started_at once running');
  t.same(res.body.summary, { running: { instance: 0, training: 4, workspace: 0 } }, 'summary counts runs');
  t.equal(res.body.next_cursor, null);

  t.same((await page(s, '?state=history')).body.items, [], 'nothing has ended yet');
  const group = await s.call('GET', '/v1/compute/groups/sweep_lr');
  t.equal(group.status, 200);
  conforms(t, 'GET', '/v1/compute/groups/{id}', group);
  t.same(computePageProblems(group.body, true), []);
  t.same(group.body.items.map((i: { id: string }) => i.id), [...sweepRuns].reverse(), 'the sweep\'s runs, newest first');
  t.same(group.body.items[0].group, group.body.group, 'each run carries its group');

  await s.call('POST', `/_mock/workloads/${sweepRuns[0]}/fail`, { body: {} });
  await advance(s, 7200);
  const history = await page(s, '?state=history');
  t.same(history.body.items.map((i: { id: string }) => i.id), [late, 'sweep_lr', lone]);
  t.match(history.body.items[1], { state: 'failed', group: { size: 2, running: 0, succeeded: 1, failed: 1 } });
  t.ok(history.body.items[1].ended_at, 'an ended sweep has ended_at');
  t.equal(history.body.items[0].state, 'succeeded');
  t.same((await page(s, '')).body, { items: [], next_cursor: null, summary: { running: { instance: 0, training: 0, workspace: 0 } } });
});

t.test('filters: instances and workspaces list nothing, agents nothing, me is 403; paused is history', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submit(s);
  await advance(s, 200);
  for (const query of ['?type=instance', '?type=workspace', '?launched_by=agents', '?include=workspaces&type=workspace']) {
    const res = await page(s, query);
    t.equal(res.status, 200, query);
    t.same(res.body.items, [], query);
    t.equal(res.body.summary.running.training, 1, `${query}: the summary ignores filters`);
  }
  t.equal((await page(s, '?type=training&include=workspaces')).body.items.length, 1);
  const me = await page(s, '?launched_by=me');
  t.equal(me.status, 403);
  t.equal(me.body.error, 'attribution_required');
  conforms(t, 'GET', '/v1/compute', me);

  await s.call('POST', `/v1/workloads/${id}/freeze`, { body: {} });
  await advance(s, 120);
  const history = await page(s, '?state=history');
  t.equal(history.body.items[0]?.state, 'paused', 'frozen training is paused, under history');
  t.equal(history.body.summary.running.training, 0, 'and not running in the summary');
});

t.test('pages follow the cursor to the end as the SDK iterates; bad limits and cursors are 400', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    ids.push(await submit(s, i < 3 ? {} : { sweep_id: `s${i}` }));
    await advance(s, 1);
  }
  for (let i = 0; i < 5; i++) await submit(s, { sweep_id: 'big' });
  const all = await iterateAll(async (cursor) => (await page(s, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).body);
  t.equal(all.length, 8, 'three lone runs, four small sweeps and the big one');
  t.equal(new Set(all.map((i) => i.id)).size, 8, 'no item twice');
  t.same(all.slice(1).map((i) => i.id), [...ids].reverse().map((id, i) => (6 - i >= 3 ? `sweep_s${6 - i}` : id)));
  const exact = await page(s, '?limit=8');
  t.equal(exact.body.next_cursor, null, 'no cursor when nothing follows');

  const first = await page(s, '?limit=3');
  const cursor = first.body.next_cursor;
  t.type(cursor, 'string');
  for (const [query, code] of [
    ['?limit=0', 'invalid_limit'], ['?limit=101', 'invalid_limit'], ['?limit=2.5', 'invalid_limit'],
    ['?cursor=nope', 'invalid_cursor'], [`?cursor=${encodeURIComponent(cursor)}&state=history`, 'invalid_cursor'],
    [`?cursor=${encodeURIComponent(cursor.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')))}`, 'invalid_cursor'],
    ['?state=paused', 'invalid_request'],
  ]) {
    const res = await page(s, query);
    t.equal(res.status, 400, query);
    t.equal(res.body.error, code, query);
    conforms(t, 'GET', '/v1/compute', res);
  }
  t.equal((await page(s, `?limit=3&cursor=${encodeURIComponent(cursor)}`, )).status, 200, 'the cursor with its own filters');
  t.equal((await s.call('GET', `/v1/compute/groups/sweep_big?cursor=${encodeURIComponent(cursor)}`)).body.error, 'invalid_cursor', 'a list cursor is not a group cursor');

  const runs = await iterateAll(async (c) => (await s.call('GET', `/v1/compute/groups/sweep_big?limit=2${c ? `&cursor=${encodeURIComponent(c)}` : ''}`)).body, true);
  t.equal(runs.length, 5, 'a group pages its runs');
  t.ok(runs.every((r) => (r.group as { size: number }).size === 5));
});

t.test('a group is 404 for a sweep without training here: unknown or another tenant\'s; an id without sweep_ is a 400', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  await submit(s, { sweep_id: 'mine' });
  const other = freshKey();
  for (const id of ['mine', 'sweep_']) {
    const res = await s.call('GET', `/v1/compute/groups/${id}`);
    t.equal(res.status, 400, `${id}: the contract's pattern is ^sweep_.+`);
    t.equal(res.body.error, 'invalid_request');
  }
  for (const [id, key] of [['sweep_nope', undefined], ['sweep_mine', other]] as const) {
    const res = await s.call('GET', `/v1/compute/groups/${id}`, { key });
    t.equal(res.status, 404, `${id}${key ? ' (another tenant)' : ''}`);
    t.equal(res.body.error, 'not_found');
    conforms(t, 'GET', '/v1/compute/groups/{id}', res);
  }
  t.same((await s.call('GET', '/v1/compute', { key: other })).body.items, [], 'another tenant lists none of it');
});
