import t from '../helpers/tap.js';
import { domainServices, submit } from '../helpers/domain.js';

/** A tenant with a webhook and one custom workload, accepted and not yet materialised past that. */
async function tenantWithRun(t: Parameters<typeof domainServices>[0]) {
  const d = domainServices(t);
  const tenant = d.tenant();
  d.services.webhooks.put(tenant, { url: 'http://127.0.0.1:9/hook' });
  const id = await submit(d.services, tenant);
  const deliveries = () => d.store.webhooks.list(tenant, { limit: 100 }).map((row) => row.type);
  const events = () => d.store.runtime.events(id, 0, 100).length;
  return { d, tenant, id, deliveries, events };
}

t.test('a read that materialises announces what it passed in the same commit', async (t) => {
  const { d, tenant, id, deliveries } = await tenantWithRun(t);
  t.same(deliveries(), [], 'nothing announced before the run is read');
  await d.services.control.advanceClock(tenant, 60);
  // advanceClock materialised the tenant: the status changes are in the outbox already.
  const announced = deliveries();
  t.ok(announced.length > 0, 'the advance announced the statuses it passed');
  t.equal(d.services.workloads.materialisedRead(tenant, id, (row) => row.status), d.store.workloads.get(tenant, id)!.status);
  t.same(deliveries(), announced, 'a second read at the same now announces nothing again');
});

t.test('an operation that throws after materialising leaves neither the rows nor the announcements', async (t) => {
  const { d, tenant, id, deliveries, events } = await tenantWithRun(t);
  const before = { deliveries: deliveries(), events: events(), row: d.store.workloads.get(tenant, id) };
  t.throws(() =>
    d.services.context.units.atNow(tenant, (unit) => {
      unit.advanceClock(120);
      const row = unit.workload(id);
      t.not(row.status, before.row!.status, 'inside, the run moved on');
      t.ok(deliveries().length > before.deliveries.length, 'and its statuses were announced');
      throw new Error('the operation fails');
    }), /the operation fails/);
  t.same({ deliveries: deliveries(), events: events(), row: d.store.workloads.get(tenant, id) }, before, 'all of it rolled back together');
});

t.test('units never nest: a second one opened inside the first throws, and the first rolls back', async (t) => {
  const { d, tenant } = await tenantWithRun(t);
  const { units } = d.services.context;
  const before = d.services.control.clock(tenant).nowMs;
  t.throws(() => units.atNow(tenant, (unit) => {
    unit.advanceClock(30);
    units.atNow(tenant, () => undefined);
  }), /opened inside another/);
  t.equal(d.services.control.clock(tenant).nowMs, before, 'the outer unit\'s clock change is undone');
  t.equal(units.atNow(tenant, (unit) => unit.nowMs), before, 'and the seam is usable again');
});
