import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { advance, launchRun, legCounting, workloadCount } from '../../helpers/rl.js';
import { startInProcess, startServer, type TestServer } from '../../helpers/server.js';

/** What `client.run(image=..., command=..., budget=..., extra={"rl": ...})` sends. */
const customRun = (overrides: Record<string, unknown> = {}) => ({
  requirements: { compute_class: 'accelerator' },
  outcome: { max_cost_usd: 3.0 },
  continuity: { mode: 'checkpointed', resume_on_interruption: true },
  stages: [{ id: 'main', source: { image: 'python:3.11-slim', command: ['python', 'train.py'] }, outputs: { results: 'outputs' } }],
  rl: { schema_version: 1, environment_id: 'custom', mode: 'train', model: 'my-model', planned_tasks: 32 },
  ...overrides,
});

/** `key: null` sends no Idempotency-Key. */
const submit = (s: TestServer, body: unknown, key: string | null = `k-${Math.random()}`) =>
  s.call('POST', '/v1/workloads', { body, headers: key === null ? {} : { 'idempotency-key': key } });

t.test('a custom RL run submits, progresses and completes without a score', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const res = await submit(s, customRun(), 'custom-1');
  t.equal(res.status, 202);
  conforms(t, 'POST', '/v1/workloads', res);
  t.match(res.body, { id: /^wl_/, status: 'accepted', revision: 1 });
  t.equal(res.body.workload_id, res.body.id);
  await advance(s, 3600);
  const w = await s.call('GET', `/v1/workloads/${res.body.id}`);
  conforms(t, 'GET', '/v1/workloads/{id}', w);
  t.equal(w.body.status, 'completed');
  t.ok(w.body.spend_usd > 0);
  const events = await s.call('GET', `/v1/workloads/${res.body.id}/rl-events`);
  t.same(events.body.events, [], 'task events come only from ingestion');
  const outputs = await s.call('GET', `/v1/workloads/${res.body.id}/outputs`);
  t.same(outputs.body.outputs.map((o: any) => [o.stage_id, o.name]), [['main', 'results']], 'declared outputs are published');
});

t.test('plain source runs, the newer SDK\'s catalog submission, unknown top-level fields', async (t) => {
  const s = await startInProcess(t);
  const plain = await submit(s, {
    requirements: {}, outcome: { max_cost_usd: 1.0 }, continuity: { mode: 'checkpointed', resume_on_interruption: true },
    source: { image: 'python:3.11-slim', command: ['python', '-c', 'print(1)'] },
  });
  t.equal(plain.status, 202);
  const catalog = await submit(s, customRun({ rl: { schema_version: 1, environment_id: 'gsm8k', mode: 'train', model: 'Qwen/Qwen3-1.7B', planned_tasks: 64 } }));
  t.equal(catalog.status, 202, 'a catalog environment id such as gsm8k is accepted');
  const extra = await submit(s, customRun({ future_field: { anything: true } }));
  t.equal(extra.status, 202, 'unknown top-level fields are ignored');
});

t.test('submission errors are 400s with the SDK\'s codes', async (t) => {
  const s = await startInProcess(t);
  const rl = customRun().rl;
  const cases: [string, unknown, string, RegExp?][] = [
    ['no source', { requirements: {}, outcome: {} }, 'missing_source'],
    ['empty stages', { stages: [] }, 'missing_source'],
    ['recipe on a custom run', customRun({ rl: { ...rl, recipe: null } }), 'invalid_rl', /rl\.recipe: server-owned/],
    ['a string recipe', customRun({ rl: { ...rl, recipe: 'reasoning-gym-leg-counting' } }), 'invalid_rl', /rl\.recipe: server-owned/],
    ['a partial recipe', customRun({ rl: { ...rl, recipe: { id: 'reasoning-gym-leg-counting' } } }), 'invalid_rl', /rl\.recipe: server-owned/],
    ['a recipe and another bad field', customRun({ rl: { ...rl, planned_tasks: 0, recipe: {} } }), 'invalid_rl', /rl\.recipe: server-owned/],
    ['no schema_version', customRun({ rl: { ...rl, schema_version: undefined } }), 'invalid_rl', /schema_version/],
    ['schema_version 2', customRun({ rl: { ...rl, schema_version: 2 } }), 'invalid_rl'],
    ['unknown rl key', customRun({ rl: { ...rl, extra: 1 } }), 'invalid_rl', /extra/],
    ['bad environment id', customRun({ rl: { ...rl, environment_id: 'Bad_Id' } }), 'invalid_rl', /environment_id/],
    ['unknown environment', customRun({ rl: { ...rl, environment_id: 'not-a-thing' } }), 'invalid_rl', /environment_id/],
    ['officeqa train', customRun({ rl: { ...rl, environment_id: 'officeqa', mode: 'train' } }), 'invalid_rl'],
    ['planned_tasks 0', customRun({ rl: { ...rl, planned_tasks: 0 } }), 'invalid_rl', /planned_tasks/],
    ['planned_tasks 10001', customRun({ rl: { ...rl, planned_tasks: 10001 } }), 'invalid_rl', /planned_tasks/],
    ['multi-node', customRun({ requirements: { node_count: 2 } }), 'distributed_training_unavailable'],
    ['total gpus', customRun({ requirements: { total_gpu_count: 4 } }), 'distributed_training_unavailable'],
    ['compute class', customRun({ requirements: { compute_class: 'quantum' } }), 'invalid_compute_class'],
    ['continuity mode', customRun({ continuity: { mode: 'forever' } }), 'invalid_continuity_mode'],
    ['name too long', customRun({ name: 'x'.repeat(121) }), 'invalid_request', /name/],
  ];
  for (const [name, body, code, message] of cases) {
    const res = await submit(s, JSON.parse(JSON.stringify(body)));
    t.equal(res.status, 400, name);
    t.equal(res.body.error, code, `${name}: ${res.body.message}`);
    if (message) t.match(res.body.message, message);
    conforms(t, 'POST', '/v1/workloads', res);
  }
  const missingKey = await submit(s, customRun(), null);
  t.equal(missingKey.body.error, 'idempotency_key_required');
  t.equal(workloadCount(s), 0);

  const valid = await s.call('POST', '/v1/workloads/validate', { body: customRun() });
  t.equal(valid.status, 200);
  conforms(t, 'POST', '/v1/workloads/validate', valid);
  t.match(valid.body, { valid: true, submitted: false });
  t.equal((await s.call('POST', '/v1/workloads/validate', { body: { stages: [] } })).body.error, 'missing_source');
  t.equal(workloadCount(s), 0, 'validate submits nothing');
});

t.test('a retry of the same bytes is answered by the key\'s hook, from memory, without the submit', async (t) => {
  const s = await startInProcess(t);
  const first = await submit(s, customRun(), 'same-key');
  // The first retry reads the key's record from the file, and memory keeps it from then on.
  t.equal((await submit(s, customRun(), 'same-key')).text, first.text);
  const { workloads } = s.app.services;
  const submitted = t.capture(workloads, 'submit', workloads.submit);
  t.equal((await submit(s, customRun(), 'same-key')).text, first.text);
  t.equal(submitted.calls.length, 0, 'the route\'s hook asked the submits\' memory (workload.submit), not another operation\'s');
});

// On a socket, for the concurrent storm at its end.
t.test('custom submits replay and conflict exactly like launches', async (t) => {
  const s = await startServer(t);
  const first = await submit(s, customRun(), 'same-key');
  const again = await submit(s, customRun(), 'same-key');
  t.equal(again.status, 202);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal(again.text, first.text);
  const other = await submit(s, customRun({ name: 'different' }), 'same-key');
  t.equal(other.status, 409);
  t.equal(other.body.error, 'idempotency_conflict');
  const launchScope = await s.call('POST', '/v1/rl-runs/preview', { body: legCounting() });
  const launched = await s.call('POST', '/v1/rl-runs', {
    body: { ...launchScope.body.configuration, review_token: launchScope.body.review_token },
    headers: { 'idempotency-key': 'same-key' },
  });
  t.equal(launched.status, 202, 'keys are scoped per operation');
  t.equal(workloadCount(s), 2);
  const storm = await Promise.all(Array.from({ length: 20 }, () => submit(s, customRun({ name: 'storm' }), 'storm')));
  t.equal(new Set(storm.map((r) => r.body.id)).size, 1);
  t.same([...new Set(storm.map((r) => r.status))], [202]);
});

t.test('budget refusal applies to workload submits too', async (t) => {
  const s = await startInProcess(t);
  await s.call('PUT', '/_mock/budget', { body: { monthly_spend_cap_usd: 0.001 } });
  const res = await submit(s, customRun());
  t.equal(res.status, 402);
  t.equal(res.body.error, 'budget_exceeded');
  t.type(res.body.remaining_headroom_usd, 'number');
});

t.test('GET /v1/workloads: newest first, pages, filters', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    ids.push((await submit(s, customRun({ name: `run-${i}` }))).body.id);
    await advance(s, 1);
  }
  const { id: recipeRun } = await launchRun(s, legCounting({ evaluation_tasks: 4 }));
  ids.push(recipeRun);
  const all = await s.call('GET', '/v1/workloads');
  conforms(t, 'GET', '/v1/workloads', all);
  t.same(all.body.workloads.map((w: any) => w.id), [...ids].reverse(), 'newest first');
  t.notOk('next_offset' in all.body, 'omitted on the last page');
  t.equal(all.body.workloads[1].name, 'run-4');

  const p1 = await s.call('GET', '/v1/workloads?limit=4&offset=0');
  t.equal(p1.body.workloads.length, 4);
  t.equal(p1.body.next_offset, 4);
  const p2 = await s.call('GET', '/v1/workloads?limit=4&offset=4');
  t.equal(p2.body.workloads.length, 2);
  t.notOk('next_offset' in p2.body);
  for (const lenient of ['0', '-3', '1000']) {
    t.equal((await s.call('GET', `/v1/workloads?limit=${lenient}`)).body.workloads.length, 6, `limit=${lenient} means 50`);
  }
  t.equal((await s.call('GET', '/v1/workloads?limit=abc')).status, 400);
  t.equal((await s.call('GET', '/v1/workloads?offset=-1')).status, 400);

  await s.call('POST', `/v1/workloads/${ids[0]}/cancel`);
  await advance(s, 2 * 3600);
  const terminal = await s.call('GET', '/v1/workloads?status=terminal');
  t.equal(terminal.body.workloads.length, 6);
  const { id: active } = await launchRun(s, legCounting({ evaluation_tasks: 4 }));
  t.same((await s.call('GET', '/v1/workloads?status=active')).body.workloads.map((w: any) => w.id), [active]);
  t.same((await s.call('GET', '/v1/workloads?status=cancelled')).body.workloads.map((w: any) => w.id), [ids[0]]);
  t.same((await s.call('GET', '/v1/workloads?status=cancelled,bogus')).body.workloads.map((w: any) => w.id), [ids[0]], 'unknown tokens are ignored');
  t.same((await s.call('GET', '/v1/workloads?status=bogus')).body.workloads, []);
  const mine = await s.call('GET', '/v1/workloads?scope=mine');
  t.equal(mine.status, 403);
  t.equal(mine.body.error, 'attribution_required');
  t.equal((await s.call('GET', '/v1/workloads?scope=team')).status, 200);
});
