import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { advance, drainEvents, launchRun, legCounting, lifecycleEvents, secondsToFinish } from '../../helpers/rl.js';
import { startInProcess, type TestServer } from '../../helpers/server.js';

const FREEZE = '/v1/workloads/{id}/freeze';
const RESUME = '/v1/workloads/{id}/resume';

const get = (s: TestServer, id: string) => s.call('GET', `/v1/workloads/${id}`);
const freeze = (s: TestServer, id: string, body?: unknown) => s.call('POST', `/v1/workloads/${id}/freeze`, { body });
const resume = (s: TestServer, id: string, body?: unknown) => s.call('POST', `/v1/workloads/${id}/resume`, { body });

/** A run's RL rows and lifecycle events as times after its creation, without ids. */
async function shape(s: TestServer, id: string) {
  const created = Date.parse((await get(s, id)).body.created_at);
  const rows = (await drainEvents(s, id)).rows.map((r) => {
    const { event_id: _e, ...event } = r.event;
    return { ...event, generation: r.generation, at: Date.parse(r.received_at) - created };
  });
  const lifecycle = (await lifecycleEvents(s, id)).map((e) => ({ type: e.event_type, payload: e.payload, at: Date.parse(e.created_at) - created }));
  return { created, rows, lifecycle };
}

async function untilStatus(s: TestServer, id: string, status: string) {
  for (let i = 0; i < 100 && (await get(s, id)).body.status !== status; i++) await advance(s, 5);
}

t.test('a frozen run stops on the clock; resumed, it is the uninterrupted run shifted by the pause', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const config = legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 6, seed: 7 });
  const frozen = await launchRun(s, config);
  const plain = await launchRun(s, config);
  await untilStatus(s, frozen.id, 'running');
  await advance(s, 90);

  const requested = await freeze(s, frozen.id, {});
  t.equal(requested.status, 202);
  conforms(t, 'POST', FREEZE, requested);
  t.match(requested.body, { workload_id: frozen.id, stage_id: 'main', generation: 1, state: 'requested', frozen_at: null, retained_bytes: 0 });
  t.ok(['requested', 'releasing', 'frozen'].includes(requested.body.state), 'a state the SDK accepts from freeze');
  t.equal((await get(s, frozen.id)).body.status, 'freezing');
  await advance(s, 5);
  t.equal((await s.call('GET', `/v1/workloads/${frozen.id}/freeze`)).body.state, 'releasing');
  await advance(s, 25);
  const held = await s.call('GET', `/v1/workloads/${frozen.id}/freeze`);
  conforms(t, 'GET', FREEZE, held);
  t.match(held.body, { id: requested.body.id, state: 'frozen', frozen_at: String, manifest_id: /^mf_/ });
  t.ok(held.body.retained_bytes > 0, 'the saved state is retained');

  const before = { w: (await get(s, frozen.id)).body, rows: (await drainEvents(s, frozen.id)).rows.length, lifecycle: (await lifecycleEvents(s, frozen.id)).length };
  t.equal(before.w.status, 'frozen');
  await advance(s, 6 * 3600);
  const after = (await get(s, frozen.id)).body;
  t.equal(after.status, 'frozen', 'six hours later, still frozen');
  t.equal(after.spend_usd, before.w.spend_usd, 'no spend while frozen');
  t.equal(after.meter.accruing_rate_usd_hour, 0);
  t.equal((await drainEvents(s, frozen.id)).rows.length, before.rows, 'no task events while frozen');
  t.equal((await lifecycleEvents(s, frozen.id)).length, before.lifecycle, 'no lifecycle events while frozen');

  const again = await freeze(s, frozen.id);
  t.equal(again.status, 409);
  t.equal(again.body.error, 'already_frozen');
  conforms(t, 'POST', FREEZE, again);
  const resuming = await resume(s, frozen.id, {});
  t.equal(resuming.status, 202);
  conforms(t, 'POST', RESUME, resuming);
  t.equal(resuming.body.state, 'resuming', 'a state the SDK accepts from resume');
  t.equal(resuming.body.id, requested.body.id);
  const twice = await resume(s, frozen.id);
  t.equal(twice.status, 409);
  t.equal(twice.body.error, 'resume_pending');

  await advance(s, 2 * secondsToFinish(frozen.preview));
  t.equal((await s.call('GET', `/v1/workloads/${frozen.id}/freeze`)).body.state, 'resumed');
  const a = await shape(s, frozen.id);
  const b = await shape(s, plain.id);
  t.equal((await get(s, frozen.id)).body.status, 'completed');
  const tf = Date.parse(requested.body.requested_at) - a.created;
  const back = a.lifecycle.find((e) => e.type === 'workload.status' && e.payload.previous === 'frozen')!;
  const span = back.at - tf;
  t.ok(span > 6 * 3600_000, `paused for ${span} ms`);
  const shifted = b.rows.map((r) => (r.at > tf ? { ...r, at: r.at + span } : r));
  t.same(a.rows, shifted, 'the same task events, those after the freeze moved by the paused span');
  const stepsA = a.lifecycle.filter((e) => e.type === 'rl.training_step');
  const stepsB = b.lifecycle.filter((e) => e.type === 'rl.training_step').map((e) => (e.at > tf ? { ...e, at: e.at + span } : e));
  t.same(stepsA, stepsB, 'the same training steps, shifted the same way');

  // Freezing still holds the machine while state is saved; frozen holds nothing.
  const wa = (await get(s, frozen.id)).body;
  const wb = (await get(s, plain.id)).body;
  const freezingHours = (Date.parse(held.body.frozen_at) - Date.parse(requested.body.requested_at)) / 3_600_000;
  t.ok(Math.abs(wa.spend_usd - (wb.spend_usd + freezingHours * wa.route.price_usd_hour)) < 2e-6, 'spend: the uninterrupted run\'s plus the freezing span');
  const outputsA = (await s.call('GET', `/v1/workloads/${frozen.id}/outputs`)).body.outputs;
  const outputsB = (await s.call('GET', `/v1/workloads/${plain.id}/outputs`)).body.outputs;
  t.same(outputsA.map((o: any) => [o.name, o.sha256]), outputsB.map((o: any) => [o.name, o.sha256]), 'the same outputs, byte for byte');
});

t.test('freeze and resume refuse what cannot happen; GET freeze is 404 until a freeze', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id, preview } = await launchRun(s, legCounting({ evaluation_tasks: 4 }));
  const never = await s.call('GET', `/v1/workloads/${id}/freeze`);
  t.equal(never.status, 404, 'never frozen');
  t.equal(never.body.error, 'not_found');
  conforms(t, 'GET', FREEZE, never);
  const nothing = await resume(s, id);
  t.equal(nothing.status, 409);
  t.equal(nothing.body.error, 'not_frozen');
  conforms(t, 'POST', RESUME, nothing);

  // Frozen while still queued: accepted, and nothing moves until the resume.
  const early = await freeze(s, id);
  t.equal(early.status, 202, 'an empty body is accepted too');
  await advance(s, 3600);
  t.equal((await get(s, id)).body.status, 'frozen');
  t.equal((await get(s, id)).body.spend_usd, 0);
  t.equal((await resume(s, id)).status, 202);
  await advance(s, secondsToFinish(preview));
  t.equal((await get(s, id)).body.status, 'completed');
  const ended = await freeze(s, id);
  t.equal(ended.status, 409);
  t.equal(ended.body.error, 'workload_terminal');
  t.equal((await resume(s, id)).body.error, 'workload_terminal');
  const record = await s.call('GET', `/v1/workloads/${id}/freeze`);
  t.equal(record.body.state, 'resumed', 'the refused requests left the record alone');

  const other = await launchRun(s, legCounting());
  await untilStatus(s, other.id, 'running');
  await s.call('POST', `/_mock/workloads/${other.id}/recover`, { body: {} });
  const recovering = await freeze(s, other.id);
  t.equal(recovering.status, 409);
  t.equal(recovering.body.error, 'workload_recovering');
  t.equal((await s.call('GET', `/v1/workloads/${other.id}/freeze`)).status, 404, 'a refused freeze is no freeze');

  const cancelled = await launchRun(s, legCounting());
  await untilStatus(s, cancelled.id, 'running');
  await freeze(s, cancelled.id);
  await s.call('POST', `/v1/workloads/${cancelled.id}/cancel`);
  t.match((await s.call('GET', `/v1/workloads/${cancelled.id}/freeze`)).body, { state: 'failed', reason: /ended \(cancelled\) before the freeze completed/ });
});
