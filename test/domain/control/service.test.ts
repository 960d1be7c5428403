import t from '../../helpers/tap.js';
import { FaultRule } from '../../../openapi/mock.js';
import { RLRecipeRequest, RLRunRequest } from '../../../openapi/rl-recipes.js';
import { domainServices, journalRow } from '../../helpers/domain.js';
import { legCounting, secondsToFinish } from '../../helpers/rl.js';

const rule = (fields: Record<string, unknown>) => FaultRule.parse({ action: { type: 'error', status: 503, error: 'unavailable' }, ...fields });

t.test('a fault rule is removed by id, a missing one is a 404; clearing removes the rest', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const { control } = d.services;
  const first = control.addFault(tenant, rule({ path: '/v1/*' }));
  const second = control.addFault(tenant, rule({ path: '/v1/me' }));
  t.throws(() => control.removeFault(tenant, 'flt_missing'), { refusal: 'not_found', message: 'fault flt_missing not found' });
  control.removeFault(tenant, first.id);
  t.same(control.faults(tenant).map((f) => f.id), [second.id]);
  control.clearFaults(tenant);
  t.same(control.faults(tenant), []);
});

t.test('advancing the clock materialises what fell due, in the same call', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const { control, launches } = d.services;
  const reviewed = await launches.preview(tenant, RLRecipeRequest.parse(legCounting()));
  const launched = await launches.launch(tenant, 'clock', RLRunRequest.parse({ ...reviewed.configuration, review_token: reviewed.review_token }));
  const id = launched.submitted.id;
  const before = control.clock(tenant).nowMs;
  t.equal(d.store.workloads.get(tenant, id)?.status, 'accepted');

  d.wall.now += 3_600_000;
  t.equal(control.clock(tenant).nowMs, before, 'a manual clock ignores wall time');
  const now = await control.advanceClock(tenant, secondsToFinish(reviewed));
  t.equal(now, before + secondsToFinish(reviewed) * 1000);
  const row = d.store.workloads.get(tenant, id)!;
  t.equal(row.status, 'completed', 'the stored row, not only a later read, has reached the end');
  t.ok(row.materialisedToMs <= now && row.materialisedToMs > before);
});

t.test('the clock switches mode without jumping; reset restores the defaults and keeps the time', async (t) => {
  const d = domainServices(t, { timeScale: 60 });
  const tenant = d.tenant();
  const { control } = d.services;
  const start = control.clock(tenant).nowMs;
  t.match(control.setClock(tenant, 'realtime', 10), { mode: 'realtime', scale: 10, nowMs: start });
  d.wall.now += 1000;
  t.equal(control.clock(tenant).nowMs, start + 10_000, 'one wall second at scale 10');

  control.addFault(tenant, rule({ path: '/v1/me' }));
  const deleted = control.reset(tenant);
  t.equal(deleted.faults, 1);
  t.match(control.clock(tenant), { mode: 'manual', scale: 60, nowMs: start + 10_000 });
  t.same(control.faults(tenant), []);
});

t.test('the journal keeps each tenant\'s newest rows and filters by method and path', async (t) => {
  const d = domainServices(t, { journalSize: 3 });
  const [a, b] = [d.tenant(), d.tenant()];
  const { control } = d.services;
  d.services.requests.appendJournal([
    { tenantId: a, row: journalRow({ method: 'GET', path: '/v1/me', atMs: 1 }) },
    { tenantId: a, row: journalRow({ method: 'POST', path: '/v1/rl-runs', atMs: 2 }) },
    { tenantId: b, row: journalRow({ method: 'GET', path: '/v1/me', atMs: 3 }) },
    { tenantId: a, row: journalRow({ method: 'GET', path: '/v1/rl-recipes', atMs: 4 }) },
  ]);
  d.services.requests.appendJournal([{ tenantId: a, row: journalRow({ method: 'GET', path: '/v1/rl-runs/preview', atMs: 5 }) }]);

  const paths = (tenant: string, query: { method?: string; path?: string } = {}) =>
    control.requests(tenant, { limit: 100, ...query }).rows.map((r) => r.path);
  t.same(paths(a), ['/v1/rl-runs/preview', '/v1/rl-recipes', '/v1/rl-runs'], 'newest first, the oldest evicted beyond the size');
  t.same(paths(b), ['/v1/me'], 'another tenant\'s ring');
  t.same(paths(a, { method: 'get' }), ['/v1/rl-runs/preview', '/v1/rl-recipes'], 'method in any case');
  t.same(paths(a, { path: '/v1/rl-runs' }), ['/v1/rl-runs'], 'an exact path');
  t.same(paths(a, { path: '/v1/rl-runs*' }), ['/v1/rl-runs/preview', '/v1/rl-runs'], 'a prefix');
  t.same(control.requests(a, { limit: 1 }).rows.map((r) => r.path), ['/v1/rl-runs/preview']);

  control.clearRequests(a);
  t.same(paths(a), []);
  t.same(paths(b), ['/v1/me']);
});

t.test('keys: open mode takes nk_test_ keys, strict mode only its own, each a stable tenant', async (t) => {
  const open = domainServices(t);
  const tenant = open.services.control.registerKey('nk_test_domain');
  t.same(open.services.control.registerKey('nk_test_domain'), tenant, 'the same key, the same tenant');
  t.throws(() => open.services.control.registerKey('sk_live_x'), { refusal: 'unauthenticated', message: /start with nk_test_/ });

  const strict = domainServices(t, { keys: [{ key: 'team-a', tenant: 'tenant-a' }] });
  t.equal(strict.services.control.registerKey('team-a').id, 'tenant-a');
  t.throws(() => strict.services.control.registerKey('nk_test_other'), { refusal: 'unauthenticated', message: /not configured/ });
});

t.test('overrides of an unknown recipe are a 404; readiness fails once the database is gone', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  t.throws(() => d.services.control.overrideRecipe(tenant, 'no-such-recipe', { available: false }), { refusal: 'not_found', message: 'recipe no-such-recipe not found' });
  t.match(d.services.control.overrideRecipe(tenant, 'swe-smith-repair', { available: true }), { id: 'swe-smith-repair', available: true });
  t.doesNotThrow(() => d.services.control.ready());
  d.store.close();
  t.throws(() => d.services.control.ready());
});
