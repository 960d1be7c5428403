import { createHash } from 'node:crypto';
import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { advance, launchRun, lifecycleEvents, drainEvents, secondsToFinish, legCounting } from '../../helpers/rl.js';
import { freshKey, startInProcess, type TestServer } from '../../helpers/server.js';

const get = (s: TestServer, id: string, key?: string) => s.call('GET', `/v1/workloads/${id}`, { key });

t.test('a launched train run is followed from accepted to completed by one clock advance', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id, preview } = await launchRun(s, legCounting({ mode: 'train', evaluation_tasks: 8, training_steps: 4 }));

  const first = await get(s, id);
  t.equal(first.status, 200);
  conforms(t, 'GET', '/v1/workloads/{id}', first);
  t.equal(first.body.status, 'accepted');
  t.equal(first.body.spend_usd, 0);
  t.match(first.body.payload.rl, { environment_id: 'reasoning-gym', recipe: { id: 'reasoning-gym-leg-counting' } });

  await advance(s, secondsToFinish(preview));
  const done = await get(s, id);
  conforms(t, 'GET', '/v1/workloads/{id}', done);
  t.equal(done.body.status, 'completed');
  t.ok(done.body.spend_usd > 0, 'spend accrued');
  const cost = preview.estimate.compute_cost_usd;
  t.ok(done.body.spend_usd >= cost.low * 0.99 && done.body.spend_usd <= cost.high * 1.01, 'spend within the estimate');
  t.match(done.body.meter, { settled_usd: done.body.spend_usd, accruing_usd: 0, charge_state: 'final' });
  t.ok(Date.parse(done.body.updated_at) > Date.parse(done.body.created_at));
  t.match(done.body.stages[0], { id: 'main', status: 'completed' });

  const lifecycle = await lifecycleEvents(s, id);
  const statuses = lifecycle.filter((e) => e.event_type === 'workload.status').map((e) => e.payload.status);
  t.same(statuses.filter((x) => x !== 'accepted'), ['planning', 'reserving', 'provisioning', 'running', 'completed']);
  const steps = lifecycle.filter((e) => e.event_type === 'rl.training_step');
  t.same(steps.map((e) => e.payload.step), [1, 2, 3, 4], 'reward, loss and KL per step');
  for (const step of steps) {
    for (const f of ['reward_mean', 'loss', 'kl']) t.type(step.payload[f], 'number', `step ${step.payload.step} ${f}`);
  }
  const ids = lifecycle.map((e) => e.id);
  t.same(ids, [...ids].sort((a, b) => a - b), 'ascending integer ids');

  const { rows } = await drainEvents(s, id);
  const completed = rows.filter((r) => r.event.kind === 'task_completed');
  const byPhase = (p: string) => completed.filter((r) => r.event.phase === p).length;
  const scoredTasks = (p: string) => new Set(completed.filter((r) => r.event.phase === p && r.event.outcome !== 'error').map((r) => r.event.task_id)).size;
  t.equal(scoredTasks('baseline'), 8, 'every held-out task scored once, errored attempts retried');
  t.equal(scoredTasks('evaluation'), 8);
  t.ok(byPhase('baseline') >= 8 && byPhase('evaluation') >= 8);
  t.equal(byPhase('training'), 4 * 8, 'a group of 8 attempts per step');
  t.equal(rows.length, completed.length * 2, 'every attempt reports started then completed');
  t.notOk(rows.some((r) => 'input' in r.event), 'no traces unless asked for');
});

t.test('outputs: listed after completion, bytes match their SHA-256', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id, preview } = await launchRun(s, legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 2 }));
  const before = await s.call('GET', `/v1/workloads/${id}/outputs`);
  t.equal(before.status, 200);
  t.same(before.body, { workload_id: id, outputs: [] }, 'nothing before completion');

  await advance(s, secondsToFinish(preview));
  const list = await s.call('GET', `/v1/workloads/${id}/outputs`);
  conforms(t, 'GET', '/v1/workloads/{id}/outputs', list);
  t.same(list.body.outputs.map((o: any) => o.name).sort(), ['adapter_config.json', 'adapter_model.safetensors', 'results.json']);
  for (const o of list.body.outputs) {
    const res = await s.app.inject({
      method: 'GET', url: `/v1/workloads/${id}/outputs/${o.name}`,
      headers: { authorization: `Bearer ${s.key}`, 'accept-encoding': 'identity' },
    });
    t.equal(res.statusCode, 200, o.name);
    const bytes = res.rawPayload;
    const digest = createHash('sha256').update(bytes).digest('hex');
    t.equal(res.headers['x-nodus-sha256'], digest, `${o.name}: header matches the bytes`);
    t.equal(o.sha256, digest);
    t.equal(Number(res.headers['content-length']), bytes.length);
    t.equal(o.bytes, bytes.length);
    t.equal(res.headers['content-type'], 'application/octet-stream');
  }
  const results = JSON.parse((await s.call('GET', `/v1/workloads/${id}/outputs/results.json?stage=main`)).text);
  t.ok(results.comparison, 'results.json carries the before/after comparison');
  t.equal((await s.call('GET', `/v1/workloads/${id}/outputs/missing.bin`)).status, 404);
  t.equal((await s.call('GET', `/v1/workloads/${id}/outputs/results.json?stage=other`)).status, 404);
  t.equal((await s.call('GET', `/v1/workloads/${id}/outputs/bad%20name`)).status, 400, 'names are checked before lookup');
});

t.test('the same seed gives the same run; another seed differs', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const config = legCounting({ mode: 'train', evaluation_tasks: 8, training_steps: 3, seed: 7 });
  const a = await launchRun(s, config);
  const b = await launchRun(s, config);
  const c = await launchRun(s, { ...config, seed: 8 });
  await advance(s, secondsToFinish(a.preview));
  const shape = async (id: string) => {
    const created = Date.parse((await get(s, id)).body.created_at);
    return (await drainEvents(s, id)).rows.map((r) => {
      const { event_id: _id, ...event } = r.event;
      return { ...event, at: Date.parse(r.received_at) - created, generation: r.generation, stage: r.stage_id };
    });
  };
  const [ra, rb, rc] = [await shape(a.id), await shape(b.id), await shape(c.id)];
  t.ok(ra.length > 0);
  t.same(ra, rb, 'identical rows apart from ids derived from the workload id');
  t.notSame(ra, rc, 'another seed, another run');
});

t.test('realtime mode: wait()-style polling sees the statuses in order', async (t) => {
  // The wall clock behind realtime virtual time moves 25 ms between polls, as a client's sleep would.
  let wall = Date.now();
  const s = await startInProcess(t, { clock: 'realtime', timeScale: 1200 }, { wallNow: () => wall });
  const { id } = await launchRun(s, legCounting({ evaluation_tasks: 4 }));
  const seen: string[] = [];
  for (let polls = 0; polls < 800; polls++, wall += 25) {
    const res = await get(s, id);
    if (seen[seen.length - 1] !== res.body.status) seen.push(res.body.status);
    if (['completed', 'failed', 'cancelled'].includes(res.body.status)) break;
  }
  const order = ['accepted', 'planning', 'reserving', 'provisioning', 'running', 'completed'];
  t.equal(seen[seen.length - 1], 'completed');
  t.same(seen, [...seen].sort((x, y) => order.indexOf(x) - order.indexOf(y)), `statuses only move forward: ${seen.join(' → ')}`);
});

t.test('cancel: at every status, safe after completion, 202 cancel_requested', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  for (const target of ['accepted', 'planning', 'reserving', 'provisioning', 'running']) {
    const { id, preview } = await launchRun(s, legCounting({ evaluation_tasks: 8 }));
    for (let i = 0; i < 400 && (await get(s, id)).body.status !== target; i++) await advance(s, 1);
    t.equal((await get(s, id)).body.status, target, `reached ${target}`);
    const res = await s.call('POST', `/v1/workloads/${id}/cancel`, { headers: { 'idempotency-key': `cancel-${id}-x` } });
    t.equal(res.status, 202);
    t.same(res.body, { status: 'cancel_requested' });
    conforms(t, 'POST', '/v1/workloads/{id}/cancel', res);
    const after = (await get(s, id)).body;
    t.equal(after.status, 'cancelled', `cancelled from ${target}`);
    const events = (await drainEvents(s, id)).rows.length;
    await advance(s, secondsToFinish(preview));
    const later = (await get(s, id)).body;
    t.equal(later.status, 'cancelled');
    t.equal(later.spend_usd, after.spend_usd, 'no spend after cancel');
    t.equal((await drainEvents(s, id)).rows.length, events, 'no events after cancel');
    t.same((await s.call('GET', `/v1/workloads/${id}/outputs`)).body.outputs, []);
  }
  const { id, preview } = await launchRun(s, legCounting({ evaluation_tasks: 4 }));
  await advance(s, secondsToFinish(preview));
  const res = await s.call('POST', `/v1/workloads/${id}/cancel`);
  t.equal(res.status, 202);
  t.equal((await get(s, id)).body.status, 'completed', 'a finished workload is left as it is');
});

t.test('another tenant\'s workload, or a malformed id, reads as 404 everywhere', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id } = await launchRun(s, legCounting());
  const other = freshKey();
  const paths = ['', '/events?after=0', '/outputs', '/outputs/results.json', '/rl-events'];
  for (const p of paths) {
    t.equal((await s.call('GET', `/v1/workloads/${id}${p}`, { key: other })).status, 404, `other tenant ${p}`);
    for (const bad of ['wl_short', 'x'.repeat(100), "wl_'; DROP TABLE workloads;--", '%00']) {
      const res = await s.call('GET', `/v1/workloads/${encodeURIComponent(bad)}${p}`);
      t.ok([404, 400].includes(res.status), `${bad} ${p}: ${res.status}`);
      t.type(res.body.error, 'string');
    }
  }
  t.equal((await s.call('POST', `/v1/workloads/${id}/cancel`, { key: other })).status, 404);
  t.equal((await get(s, id)).body.status, 'accepted', 'untouched');
});

t.test('lifecycle events page by integer id', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id, preview } = await launchRun(s, legCounting({ mode: 'train', training_steps: 30 }));
  // Recoveries add lifecycle events until there are more than one page of them.
  for (let i = 0; i < 200 && (await lifecycleEvents(s, id)).length <= 100; i++) {
    await advance(s, 30);
    await s.call('POST', `/_mock/workloads/${id}/recover`, { body: {} });
  }
  await advance(s, secondsToFinish(preview) * 3);
  const firstPage = await s.call('GET', `/v1/workloads/${id}/events?after=0`);
  conforms(t, 'GET', '/v1/workloads/{id}/events', firstPage);
  t.equal(firstPage.body.events.length, 100, 'at most 100 per page');
  const all = await lifecycleEvents(s, id);
  t.ok(all.length > 100);
  t.equal(new Set(all.map((e) => e.id)).size, all.length, 'no duplicates across pages');
  t.equal((await s.call('GET', `/v1/workloads/${id}/events?after=-1`)).status, 400);
  t.equal((await s.call('GET', `/v1/workloads/${id}/events?after=x`)).status, 400);
});
