import t from '../../helpers/tap.js';
import type { Services } from '../../../server/domain/services.js';
import { customPayload, domainServices, refusal, submit } from '../../helpers/domain.js';

// The workloads service over `:memory:`: the operations the routes are one call to, without a
// server. Every tenant's clock is manual, so virtual time moves only with a unit's advanceClock.

const statusOf = (services: Services, tenantId: string, id: string) =>
  services.workloads.materialisedRead(tenantId, id, (row) => row.status);

const withStage = (outputs: Record<string, string>, id = 'main') => ({
  id,
  source: { image: 'python:3.11-slim', command: ['python', 'train.py'] },
  outputs,
});

t.test('submit admits in accepted; read materialises up to the tenant\'s virtual now, which moves only with its clock', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { workloads, context } = services;
  const tenant = newTenant();
  const answer = await workloads.submit(tenant, 'first', customPayload());
  t.equal(answer.replayed, false);
  const { id, status } = answer.submitted;
  t.equal(status, 'accepted');

  t.same(workloads.materialisedRead(tenant, id, (row, run) => [row.status, run.spec.kind]), ['accepted', 'custom'], 'read hands over the row and its run');
  t.equal(statusOf(services, tenant, id), 'accepted', 'no virtual time passed, however long the test takes');
  context.units.atNow(tenant, (unit) => unit.advanceClock(120));
  t.equal(statusOf(services, tenant, id), 'running');
  context.units.atNow(tenant, (unit) => unit.advanceClock(3600));
  t.equal(statusOf(services, tenant, id), 'completed');
  t.ok(workloads.events(tenant, id, 0).length > 0, 'the lifecycle events were written as they fell due');
});

t.test('the same Idempotency-Key replays the stored answer; another payload under it is a conflict', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const tenant = newTenant();
  const first = await services.workloads.submit(tenant, 'once', customPayload());
  const again = await services.workloads.submit(tenant, 'once', customPayload());
  t.equal(again.replayed, true);
  t.same(again.submitted, first.submitted, 'the same workload, answered as the first time');
  t.equal((await services.workloads.list(tenant, {})).workloads.length, 1, 'and no second one');
  await t.rejects(services.workloads.submit(tenant, 'once', customPayload({ name: 'other' })), { refusal: 'conflict', code: 'idempotency_conflict' });
});

t.test('cancel ends an active workload and is harmless twice or once it has finished', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { workloads, context } = services;
  const tenant = newTenant();
  const id = await submit(services, tenant);
  context.units.atNow(tenant, (unit) => unit.advanceClock(120));
  workloads.cancel(tenant, id);
  t.equal(statusOf(services, tenant, id), 'cancelled');
  workloads.cancel(tenant, id);
  t.equal(statusOf(services, tenant, id), 'cancelled', 'twice');

  const done = await submit(services, tenant);
  context.units.atNow(tenant, (unit) => unit.advanceClock(3600));
  workloads.cancel(tenant, done);
  t.equal(statusOf(services, tenant, done), 'completed', 'a finished workload stays as it ended');
});

t.test('list: newest first, status filters, the contract\'s limit rule and offset paging', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { workloads, context } = services;
  const tenant = newTenant();
  const completed = await submit(services, tenant);
  context.units.atNow(tenant, (unit) => unit.advanceClock(3600));
  const running = await submit(services, tenant);
  // Created in the same virtual millisecond, two workloads would be ordered by their random ids.
  context.units.atNow(tenant, (unit) => unit.advanceClock(1));
  const cancelled = await submit(services, tenant);
  workloads.cancel(tenant, cancelled);
  context.units.atNow(tenant, (unit) => unit.advanceClock(120));
  const ids = async (query: Parameters<typeof workloads.list>[1]) => (await workloads.list(tenant, query)).workloads.map((w) => w.row.id);

  t.same(await ids({}), [cancelled, running, completed]);
  t.same(await ids({ status: 'active' }), [running]);
  t.same(await ids({ status: 'terminal' }), [cancelled, completed]);
  t.same(await ids({ status: 'completed, running' }), [running, completed], 'a comma list, spaces allowed');
  t.same(await ids({ status: 'no-such-status' }), [], 'only unknown tokens match nothing');
  t.same(await ids({ status: 'no-such-status,cancelled' }), [cancelled], 'unknown tokens beside known ones are ignored');

  const listed = (await workloads.list(tenant, {})).workloads;
  t.same(listed.map((w) => w.terminal), [true, false, true]);
  t.ok(listed[1].accruingRateUsdHour > 0, 'the running one accrues');
  t.equal(listed[0].accruingRateUsdHour, 0, 'an ended one does not');

  const firstPage = await workloads.list(tenant, { limit: 2 });
  t.same(firstPage.workloads.map((w) => w.row.id), [cancelled, running]);
  t.equal(firstPage.nextOffset, 2);
  const lastPage = await workloads.list(tenant, { limit: 2, offset: 2 });
  t.same(lastPage.workloads.map((w) => w.row.id), [completed]);
  t.equal(lastPage.nextOffset, undefined, 'no next offset on the last page');
  for (const limit of [0, -1, 101]) t.equal((await ids({ limit })).length, 3, `limit ${limit} means 50`);

  await t.rejects(workloads.list(tenant, { scope: 'mine' }), { refusal: 'forbidden', code: 'attribution_required' });
  t.same(await ids({ scope: 'team' }), await ids({}));
  t.same((await workloads.list(newTenant(), {})).workloads, [], 'another tenant lists none of them');
});

t.test('another tenant\'s workload, a missing one and a malformed id all read as 404, and nothing changes', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { workloads, evidence, context } = services;
  const owner = newTenant();
  const other = newTenant();
  const id = await submit(services, owner);
  context.units.atNow(owner, (unit) => unit.advanceClock(120));
  const before = services.context.committed.runtime.interventions(id).length;

  const operations: Record<string, (tenantId: string, id: string) => unknown> = {
    read: (tn, wl) => workloads.materialisedRead(tn, wl, (row) => row),
    cancel: workloads.cancel,
    events: (tn, wl) => workloads.events(tn, wl, 0),
    freeze: workloads.freeze,
    resume: workloads.resume,
    freezeState: workloads.freezeState,
    artifacts: workloads.artifacts,
    ledger: workloads.ledger,
    routing: workloads.routing,
    outputs: workloads.outputs,
    output: (tn, wl) => workloads.output(tn, wl, 'results', undefined),
    recover: (tn, wl) => workloads.recover(tn, wl),
    dropEvents: (tn, wl) => workloads.dropEvents(tn, wl, 1),
    fail: (tn, wl) => workloads.fail(tn, wl),
    eventPage: (tn, wl) => evidence.eventPage(tn, wl, undefined, 100),
    log: (tn, wl) => evidence.log(tn, wl, {}),
    liveLog: (tn, wl) => evidence.liveLog(tn, wl, undefined, undefined),
    gradingResults: (tn, wl) => evidence.gradingResults(tn, wl, 1),
    summary: evidence.summary,
    ingest: (tn, wl) => evidence.ingest(tn, wl, { events: [] }, {}),
    putGradingPlan: (tn, wl) => evidence.putGradingPlan(tn, wl, {}),
  };
  for (const [name, operation] of Object.entries(operations)) {
    t.same(refusal(() => operation(other, id)), { refusal: 'not_found', code: 'not_found' }, `${name}: another tenant's`);
    t.same(refusal(() => operation(owner, 'wl_AAAAAAAAAAAAAAAAAAAA')), { refusal: 'not_found', code: 'not_found' }, `${name}: missing`);
    t.same(refusal(() => operation(owner, '../etc/passwd')), { refusal: 'not_found', code: 'not_found' }, `${name}: malformed`);
  }
  t.equal(statusOf(services, owner, id), 'running', 'the owner\'s run went on untouched');
  t.equal(services.context.committed.runtime.interventions(id).length, before, 'and nothing was recorded on it');
});

t.test('freeze and resume: one transaction each, an ignored request kept before its 409', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { workloads, context } = services;
  const tenant = newTenant();
  const id = await submit(services, tenant);
  context.units.atNow(tenant, (unit) => unit.advanceClock(120));
  t.same(refusal(() => workloads.freezeState(tenant, id)), { refusal: 'not_found', code: 'not_found' }, 'never frozen');

  const requested = workloads.freeze(tenant, id);
  t.match(requested, { workload_id: id, state: 'requested', frozen_at: null });
  t.same(workloads.freezeState(tenant, id), requested, 'read back from the same timeline');
  context.units.atNow(tenant, (unit) => unit.advanceClock(30));
  t.match(workloads.freezeState(tenant, id), { id: requested.id, state: 'frozen' });
  t.equal(statusOf(services, tenant, id), 'frozen');

  const recorded = context.committed.runtime.interventions(id).length;
  t.same(refusal(() => workloads.freeze(tenant, id)), { refusal: 'conflict', code: 'already_frozen' });
  t.equal(context.committed.runtime.interventions(id).length, recorded + 1, 'the refused freeze is recorded, as an ignored intervention');

  t.match(workloads.resume(tenant, id), { id: requested.id, state: 'resuming' });
  context.units.atNow(tenant, (unit) => unit.advanceClock(30));
  t.equal(statusOf(services, tenant, id), 'running');
  t.same(refusal(() => workloads.resume(tenant, id)), { refusal: 'conflict', code: 'not_frozen' });
});

t.test('the /_mock interventions: recover, drop events and fail, refused in the wrong state', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { workloads, context } = services;
  const tenant = newTenant();
  const id = await submit(services, tenant);
  t.same(refusal(() => workloads.recover(tenant, id)), { refusal: 'conflict', code: 'invalid_workload_state' }, 'nothing to recover before it runs');

  const dropped = workloads.dropEvents(tenant, id, 3);
  t.match(dropped, { row: { id, status: 'accepted' }, counters: { dropped: 3, truncated: true } });
  t.equal(workloads.dropEvents(tenant, id, 2).counters.dropped, 5, 'drops add up');

  context.units.atNow(tenant, (unit) => unit.advanceClock(120));
  const recovered = workloads.recover(tenant, id, 0);
  t.equal(recovered.row.status, 'recovering');
  context.units.atNow(tenant, (unit) => unit.advanceClock(120));
  t.equal(workloads.materialisedRead(tenant, id, (row) => row.generation), 2, 'back in the next generation');

  const failed = workloads.fail(tenant, id, 'out of patience');
  t.equal(failed.row.status, 'failed');
  t.same(refusal(() => workloads.fail(tenant, id)), { refusal: 'conflict', code: 'invalid_workload_state' }, 'an ended run cannot fail again');
  t.same(refusal(() => workloads.recover(tenant, id)), { refusal: 'conflict', code: 'invalid_workload_state' });
});

t.test('outputs: published on completion, found by name and stage, a bad name refused before the lookup', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { workloads, context } = services;
  const tenant = newTenant();
  const id = await submit(services, tenant, { stages: [withStage({ results: 'outputs', model: 'ckpt' }), withStage({ results: 'eval' }, 'eval')] });
  t.same(workloads.outputs(tenant, id), { workloadId: id, outputs: [] }, 'nothing before it completes');
  context.units.atNow(tenant, (unit) => unit.advanceClock(3600));

  const { outputs } = workloads.outputs(tenant, id);
  t.same(outputs.map((o) => [o.stageId, o.name]), [['main', 'results'], ['main', 'model'], ['eval', 'results']]);
  const model = workloads.output(tenant, id, 'model', undefined);
  t.equal(model.stageId, 'main');
  t.match(JSON.parse(model.content.toString()), { workload_id: id, name: 'model', path: 'ckpt' });
  t.equal(workloads.output(tenant, id, 'results', 'eval').stageId, 'eval');
  t.same(refusal(() => workloads.output(tenant, id, 'results', undefined)), { refusal: 'conflict', code: 'ambiguous_output' });
  t.same(refusal(() => workloads.output(tenant, id, 'model', 'eval')), { refusal: 'not_found', code: 'not_found' });
  t.same(refusal(() => workloads.output(tenant, id, 'missing', undefined)), { refusal: 'not_found', code: 'not_found' });
  for (const name of ['..', '.', 'a/b', 'x'.repeat(129)]) {
    t.same(refusal(() => workloads.output(tenant, 'wl_AAAAAAAAAAAAAAAAAAAA', name, undefined)), { refusal: 'invalid', code: 'invalid_request' }, `${name.slice(0, 8)}: 400 whatever the id`);
  }
});

t.test('records: artifacts, ledger and routing read from the same materialised run', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { workloads, context } = services;
  const tenant = newTenant();
  const id = await submit(services, tenant);
  context.units.atNow(tenant, (unit) => unit.advanceClock(3600));
  const ledger = workloads.ledger(tenant, id);
  t.equal(ledger.workload_id, id);
  t.equal(ledger.settlement.status, 'closed', 'settled once the run ended');
  const spend = workloads.materialisedRead(tenant, id, (row) => row.spendUsd);
  const credits = ledger.entries.reduce((sum, e) => sum + Math.round((e.credit_usd ?? 0) * 1e6), 0);
  t.equal(credits, Math.round(spend * 1e6), 'the credits add up to the spend');
  const { placements } = workloads.routing(tenant, id);
  t.same(placements.map((p) => [p.generation, p.outcome]), [[1, 'completed']]);
  t.ok(Array.isArray(workloads.artifacts(tenant, id)));
});
