import t from '../../helpers/tap.js';
import { FaultRule } from '../../../openapi/mock.js';
import { domainServices, journalRow } from '../../helpers/domain.js';

// What every /v1 request asks of the domain (server/domain/control/requests.ts): the fault rule
// that answers it, its arrival on the tenant's clock, its journal row's commit.

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

});

t.test('journal rows commit in a transaction of their own, stamped with their arrival', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const { control } = d.services;
  const arrival = d.services.requests.arrival(tenant);
  t.same(arrival, { atMs: control.clock(tenant).nowMs, wallMs: d.wall.now });
  d.services.requests.appendJournal([{ tenantId: tenant, row: journalRow({ method: 'GET', path: '/v1/me', atMs: arrival.atMs }) }]);
  t.notOk(d.store.db.inTransaction, 'committed');
  t.match(control.requests(tenant, { limit: 10 }).rows, [{ path: '/v1/me', atMs: arrival.atMs }], 'with no state change to ride');
});
