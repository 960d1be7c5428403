import t from '../../helpers/tap.js';
import { tenantTables } from '../../../store/tenant-tables.js';
import { legCounting, previewAndLaunch } from '../../helpers/rl.js';
import { freshKey, startInProcess, type TestServer } from '../../helpers/server.js';

/** Gives the tenant of `key` something in every table a /_mock or /v1 call can fill. */
async function furnish(s: TestServer, key: string) {
  await s.call('PUT', '/_mock/clock', { body: { mode: 'manual', scale: 5 }, key });
  await s.call('POST', '/_mock/clock/advance', { body: { seconds: 7200 }, key });
  const { launch } = await previewAndLaunch(s, legCounting(), 'reset-key', key);
  await s.call('POST', '/_mock/faults', { body: { path: '/v1/nothing', action: { type: 'reset' } }, key });
  await s.call('PATCH', '/_mock/recipes/reasoning-gym-leg-counting', { body: { available: false, unavailable_reason: 'paused' }, key });
  await s.call('PUT', '/_mock/budget', { body: { monthly_spend_cap_usd: 1000 }, key });
  return launch.body.id as string;
}

/** The tables reset deletes by tenant_id; the others go by cascade (test/store/tenant-tables.test.ts). */
const DELETED = tenantTables.flatMap(([table, spec]) => (spec.reset === 'deleted' ? [table] : []));

const rowsOf = (s: TestServer, tenant: string) =>
  Object.fromEntries(DELETED.map((table) => [
    table,
    (s.store.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE tenant_id = ?`).get(tenant) as { n: number }).n,
  ]));

t.test('reset empties one tenant and leaves the other untouched', async (t) => {
  const s = await startInProcess(t);
  const a = s.key;
  const b = freshKey();
  const tenantA = (await s.call('GET', '/v1/me', { key: a })).body.tenant;
  const tenantB = (await s.call('GET', '/v1/me', { key: b })).body.tenant;
  const workloadA = await furnish(s, a);
  await furnish(s, b);
  // A row in a workload's child table, to see the cascade work.
  s.store.db.prepare("INSERT INTO workload_interventions (seq, workload_id, at_ms, kind, args) VALUES (1, ?, 0, 'fail', '{}')").run(workloadA);
  const beforeA = (await s.call('GET', '/_mock/clock', { key: a })).body;
  const bBefore = rowsOf(s, tenantB);

  const res = await s.call('POST', '/_mock/reset', { key: a });
  t.equal(res.status, 200);
  t.match(res.body, { reset: true, deleted: { workloads: 1, idempotency_keys: 1, faults: 1, recipe_overrides: 1, budgets: 1 } });
  t.ok(res.body.deleted.request_journal >= 3);

  t.same(rowsOf(s, tenantA), Object.fromEntries(DELETED.map((table) => [table, 0])), 'nothing of A is left');
  t.equal((s.store.db.prepare('SELECT count(*) AS n FROM workload_interventions WHERE workload_id = ?').get(workloadA) as { n: number }).n, 0);
  const clock = (await s.call('GET', '/_mock/clock', { key: a })).body;
  t.match(clock, { mode: 'realtime', scale: 60 }, 'the clock follows the configured defaults again');
  t.ok(Date.parse(clock.now) >= Date.parse(beforeA.now), 'without going backwards');
  t.equal((await s.call('GET', '/v1/me', { key: a })).body.tenant, tenantA, 'the key still names its tenant');
  const again = await previewAndLaunch(s, legCounting(), 'reset-key', a);
  t.equal(again.preview.body.launchable, true, 'override and budget are gone');
  t.equal(again.launch.status, 202);
  t.equal(again.launch.headers.get('idempotent-replayed'), null, 'the idempotency key was forgotten');

  t.same(rowsOf(s, tenantB), bBefore, 'B keeps every row');
  t.match((await s.call('GET', '/_mock/clock', { key: b })).body, { mode: 'manual', scale: 5 });
  t.equal((await s.call('GET', '/_mock/faults', { key: b })).body.faults.length, 1);
});
