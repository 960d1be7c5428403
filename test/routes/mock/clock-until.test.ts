import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from '../../helpers/tap.js';
import { drainEvents, launchRun, legCounting, lifecycleEvents } from '../../helpers/rl.js';
import { freshKey, startInProcess, type TestServer } from '../../helpers/server.js';

const advance = (s: TestServer, body: unknown, key = s.key) =>
  s.app.inject({ method: 'POST', url: '/_mock/clock/advance', headers: { authorization: `Bearer ${key}` }, payload: body as object });
const now = async (s: TestServer) => (await s.call('GET', '/_mock/clock')).body.now as string;
const train50 = legCounting({ mode: 'train', training_steps: 50 });

/** When the workload entered each status, from its lifecycle events. */
async function statusTimes(s: TestServer, id: string): Promise<Map<string, string>> {
  const times = new Map<string, string>();
  for (const e of await lifecycleEvents(s, id)) if (e.event_type === 'workload.status') times.set(e.payload.status, e.created_at);
  return times;
}

t.test('until idle ends a 50-step train run in one call, at the moment it completes', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id } = await launchRun(s, train50);
  const res = await advance(s, { until: 'idle' });
  t.equal(res.statusCode, 200);
  const workload = (await s.call('GET', `/v1/workloads/${id}`)).body;
  t.equal(workload.status, 'completed');
  t.same(res.json(), { now: (await statusTimes(s, id)).get('completed'), held: true }, 'no step past the end: now is the completion');
  t.equal(await now(s), res.json().now);
  t.equal((await lifecycleEvents(s, id)).filter((e) => e.event_type === 'rl.training_step').length, 50, 'every training step happened');
  t.equal((await drainEvents(s, id)).last.has_more, false, 'and its task events are all there');

  const again = await advance(s, { until: 'idle' });
  t.same(again.json(), { now: res.json().now, held: true }, 'already idle: the clock stays');
});

t.test('until idle waits for every workload of the tenant, and only the tenant\'s', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const short = await launchRun(s, legCounting());
  const long = await launchRun(s, train50);
  const other = freshKey();
  await launchRun(s, train50, undefined, other);
  const res = await advance(s, { until: 'idle' });
  t.equal(res.statusCode, 200);
  t.equal(res.json().now, (await statusTimes(s, long.id)).get('completed'), 'the later end');
  t.equal((await s.call('GET', `/v1/workloads/${short.id}`)).body.status, 'completed');
  t.not((await s.call('GET', '/_mock/clock', { key: other })).body.now, res.json().now, "another tenant's clock is its own");
});

t.test('until a status stops when the workload reaches it, or already has one after it', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id } = await launchRun(s, train50);
  const running = await advance(s, { until: { workload_id: id, status: 'running' } });
  t.equal(running.statusCode, 200);
  t.equal((await s.call('GET', `/v1/workloads/${id}`)).body.status, 'running');
  t.same(running.json(), { now: (await statusTimes(s, id)).get('running'), held: true });

  const before = await now(s);
  for (const status of ['accepted', 'provisioning', 'running']) {
    t.same((await advance(s, { until: { workload_id: id, status } })).json(), { now: before, held: true }, `${status}: reached, nothing moves`);
  }

  const completed = await advance(s, { until: { workload_id: id, status: 'completed' } });
  t.equal(completed.json().now, (await statusTimes(s, id)).get('completed'));
  const provisioning = await advance(s, { until: { workload_id: id, status: 'provisioning' } });
  t.same(provisioning.json(), { now: completed.json().now, held: true }, 'a completed run has been provisioning');
});

t.test('a status that cannot come is a 409 naming why, and moves nothing', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id } = await launchRun(s, train50);
  await advance(s, { until: { workload_id: id, status: 'running' } });
  t.equal((await s.call('POST', `/_mock/workloads/${id}/fail`, { body: { reason: 'boom' } })).status, 200);
  for (const status of ['completed', 'cancelled', 'recovering']) {
    const res = await advance(s, { until: { workload_id: id, status } });
    t.equal(res.statusCode, 409, status);
    t.match(res.json(), { error: 'condition_unreachable', message: new RegExp(`workload ${id} end(s|ed) failed at .* without reaching ${status}`) });
  }
  t.equal((await advance(s, { until: { workload_id: id, status: 'failed' } })).statusCode, 200, 'the status it ended in holds');

  const frozen = await launchRun(s, train50);
  await advance(s, { until: { workload_id: frozen.id, status: 'running' } });
  await s.call('POST', `/v1/workloads/${frozen.id}/freeze`, { body: {} });
  const atFreeze = await now(s);
  const waiting = await advance(s, { until: { workload_id: frozen.id, status: 'completed' } });
  t.equal(waiting.statusCode, 409);
  t.match(waiting.json(), { error: 'condition_unreachable', message: `the condition cannot hold: workload ${frozen.id} stays frozen: nothing resumes it` });
  t.equal(await now(s), atFreeze, 'not moved');
  t.match((await advance(s, { until: 'idle' })).json(), { error: 'condition_unreachable', message: /stays frozen: nothing resumes it/ }, 'idle cannot come either');
});

t.test('the bound: a 409 that says when it would hold, and the clock stays', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id } = await launchRun(s, train50);
  const before = await now(s);
  const res = await advance(s, { until: 'idle', max_seconds: 60 });
  t.equal(res.statusCode, 409);
  t.match(res.json(), { error: 'max_seconds_reached', message: new RegExp(`within max_seconds \\(60, .*\\): workload ${id} ends completed at `) });
  t.equal(await now(s), before, 'not moved');
  t.equal((await s.call('GET', `/v1/workloads/${id}`)).body.status, 'accepted', 'nothing materialised');

  const week = await advance(s, { until: { workload_id: id, status: 'completed' } });
  t.equal(week.statusCode, 200, 'the default bound, a week, is far beyond one run');
});

t.test('an unknown or another tenant\'s workload is a 404; a malformed body a 400 naming the field', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id } = await launchRun(s, legCounting(), undefined, freshKey());
  for (const workload_id of [id, 'wl_00000000000000000000', 'nope']) {
    const res = await advance(s, { until: { workload_id, status: 'running' } });
    t.equal(res.statusCode, 404, workload_id);
    t.match(res.json(), { error: 'not_found', message: `workload ${workload_id} not found` });
  }
  for (const [body, message] of [
    [{}, 'body: give exactly one of seconds and until'],
    [{ seconds: 5, until: 'idle' }, 'body.until: give exactly one of seconds and until'],
    [{ seconds: 5, max_seconds: 5 }, 'body.max_seconds: only allowed with until'],
    [{ until: 'busy' }, /^body\.until: must be "idle", \{"workload_id", "status"\} with a status of accepted, planning, .*, cancelled, or \{"rule"\}$/],
    [{ until: { workload_id: id, status: 'done' } }, /^body\.until\.status: Invalid option: expected one of "accepted"\|"planning"/],
    [{ until: 'idle', max_seconds: 0 }, /^body\.max_seconds: /],
  ] as const) {
    const res = await advance(s, body);
    t.equal(res.statusCode, 400, JSON.stringify(body));
    t.match(res.json(), { error: 'invalid_request', message });
  }
  const seconds = await advance(s, { seconds: 5 });
  t.same(Object.keys(seconds.json()), ['now'], 'seconds answers as it always did');
});

t.test('until idle passes a webhook retry waiting on the virtual clock; a due delivery is the worker\'s', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  await s.call('PUT', '/v1/webhooks', { body: { url: `http://127.0.0.1:${port}/hook` } });
  await launchRun(s, legCounting());
  const ended = (await advance(s, { until: 'idle' })).json().now;
  t.same(await (await s.call('POST', '/_mock/webhooks/flush')).body, { due: 0, pending: 6 }, 'the first delivery failed and waits a virtual minute');
  const retried = await advance(s, { until: 'idle' });
  t.same(retried.json(), { now: new Date(Date.parse(ended) + 60_000).toISOString(), held: true }, 'moved to the retry, no further');
});

t.test('the clock has an end: an advance past the start of year 5000 is a 400 naming it and moves nothing', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const year = 365 * 24 * 3600;
  const start = Date.parse(await now(s));
  const tenYears = 10 * year;
  // About 300 moves of ten years reach the end through the normal API.
  let moves = 0;
  for (; Date.parse(await now(s)) + tenYears * 1000 <= Date.UTC(5000, 0, 1); moves++) t.equal((await advance(s, { seconds: tenYears })).statusCode, 200);
  t.ok(moves > 250, `${moves} moves from ${new Date(start).toISOString()}`);
  const before = await now(s);
  const past = await advance(s, { seconds: tenYears });
  t.equal(past.statusCode, 400);
  t.match(past.json(), { error: 'clock_out_of_range', message: /past the end of its range, 5000-01-01T00:00:00\.000Z/ });
  t.equal(await now(s), before, 'not moved');
  const { id } = await launchRun(s, legCounting());
  const until = await advance(s, { until: { workload_id: id, status: 'completed' }, max_seconds: tenYears });
  t.equal(until.statusCode, 200, 'a run launched near the end still ends inside the range');
  t.equal((await s.call('GET', `/v1/workloads/${id}`)).status, 200, 'its reads answer');
});
