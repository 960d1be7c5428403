import t from 'tap';
import { FaultRule } from '../../../openapi/mock.js';
import { RLRecipeRequest, RLRunRequest } from '../../../openapi/rl-recipes.js';
import type { NewJournalRow } from '../../../store/journal.js';
import { domainServices } from '../../helpers/domain.js';
import { legCounting, secondsToFinish } from '../../helpers/rl.js';

const journalRow = (method: string, path: string, atMs: number): NewJournalRow => ({
  kind: 'api', atMs, wallMs: atMs, method, path, query: '', headers: {}, headersTruncated: false, status: 200, requestId: `req_${atMs}`, idempotencyKey: null, replayed: false,
  fault: null, faultId: null, body: null, bodyJson: false, bodyBytes: 0, bodyTruncated: false, durationMs: 1,
});

const rule = (fields: Record<string, unknown>) => FaultRule.parse({ action: { type: 'error', status: 503, error: 'unavailable' }, ...fields });

t.test('a fault rule lets `after` requests through, applies `times` times, then is spent', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const { control } = d.services;
  const added = control.addFault(tenant, rule({ method: 'GET', path: '/v1/workloads/{id}', after: 1, times: 2 }));
  t.match(added, { source: 'api', seen: 0, applied: 0 });

  const take = (method: string, url: string) => d.services.requests.takeFault(tenant, method, url)?.id;
  t.equal(take('GET', '/v1/workloads/wl_1'), undefined, 'the first match is let through');
  t.equal(take('POST', '/v1/workloads/wl_1'), undefined, 'another method does not match');
  t.equal(take('GET', '/v1/workloads/wl_1/events'), undefined, 'a template matches one segment, not a prefix');
  t.equal(take('GET', '/v1/workloads/wl_2?include=all'), added.id, 'the query string is left out of the match');
  t.equal(take('GET', '/v1/workloads/wl_3'), added.id);
  t.equal(take('GET', '/v1/workloads/wl_4'), undefined, 'spent');
  t.match(control.faults(tenant), [{ id: added.id, seen: 3, applied: 2 }], 'only live matches are counted');

  const other = d.tenant();
  t.equal(d.services.requests.takeFault(other, 'GET', '/v1/workloads/wl_1'), undefined, 'rules are per tenant');
});

t.test('the oldest eligible rule applies; every live match counts the request', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const { control } = d.services;
  const waiting = control.addFault(tenant, rule({ path: '/v1/*', after: 1 }));
  const ready = control.addFault(tenant, rule({ path: '/v1/me' }));
  t.equal(d.services.requests.takeFault(tenant, 'GET', '/v1/me')?.id, ready.id, 'the older rule is still waiting');
  t.equal(d.services.requests.takeFault(tenant, 'GET', '/v1/me')?.id, waiting.id);
  t.match(control.faults(tenant), [{ id: waiting.id, seen: 2, applied: 1 }, { id: ready.id, seen: 1, applied: 1 }]);

  t.throws(() => control.removeFault(tenant, 'flt_missing'), { refusal: 'not_found', message: 'fault flt_missing not found' });
  control.removeFault(tenant, waiting.id);
  t.same(control.faults(tenant).map((f) => f.id), [ready.id]);
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
    { tenantId: a, row: journalRow('GET', '/v1/me', 1) },
    { tenantId: a, row: journalRow('POST', '/v1/rl-runs', 2) },
    { tenantId: b, row: journalRow('GET', '/v1/me', 3) },
    { tenantId: a, row: journalRow('GET', '/v1/rl-recipes', 4) },
  ]);
  d.services.requests.appendJournal([{ tenantId: a, row: journalRow('GET', '/v1/rl-runs/preview', 5) }]);

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

t.test('journal rows commit in a transaction of their own, stamped with their arrival', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const { control } = d.services;
  const arrival = d.services.requests.arrival(tenant);
  t.same(arrival, { atMs: control.clock(tenant).nowMs, wallMs: d.wall.now });
  d.services.requests.appendJournal([{ tenantId: tenant, row: journalRow('GET', '/v1/me', arrival.atMs) }]);
  t.notOk(d.store.db.inTransaction, 'committed');
  t.match(control.requests(tenant, { limit: 10 }).rows, [{ path: '/v1/me', atMs: arrival.atMs }], 'with no state change to ride');
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
