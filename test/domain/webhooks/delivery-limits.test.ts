import t from '../../helpers/tap.js';
import { setImmediate } from 'node:timers/promises';
import { MAX_IN_FLIGHT_PER_TENANT, SHARED_IN_FLIGHT } from '../../../server/domain/webhooks/delivery.js';
import { domainServices, submit } from '../../helpers/domain.js';
import type { Teardown } from '../../helpers/server.js';
import { stubFetch } from '../../helpers/webhook-receiver.js';

/*
 * The delivery worker's in-flight limits, without sockets: global fetch is replaced by receivers
 * that never answer (each attempt stays open until the worker stops), counted by URL, one URL a
 * tenant. What the worker has started once its passes have run is what the limits allow.
 */

const SILENT = { debug: () => undefined, error: () => undefined };

function hangingFetch(t: Teardown) {
  const open = new Map<string, number>();
  stubFetch(t, ({ url, init }) => {
    open.set(url, (open.get(url) ?? 0) + 1);
    return new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(init.signal!.reason)));
  });
  return open;
}

/** A tenant with a webhook at its own URL and `runs` workloads, each with its `accepted` delivery due. */
async function tenantWithDue(d: ReturnType<typeof domainServices>, runs: number): Promise<string> {
  const tenant = d.tenant();
  d.services.webhooks.put(tenant, { url: `http://127.0.0.1:9/${tenant}` });
  for (let i = 0; i < runs; i++) await submit(d.services, tenant);
  // Materialising announces each run's first status.
  await d.services.control.advanceClock(tenant, 1);
  return tenant;
}

async function settle() {
  for (let i = 0; i < 20; i++) await setImmediate();
}

t.test('one tenant with many due deliveries and receivers that never answer holds at most its own limit of attempts', async (t) => {
  const open = hangingFetch(t);
  const d = domainServices(t, { webhookTimeoutMs: 60_000 });
  const tenant = await tenantWithDue(d, 3 * MAX_IN_FLIGHT_PER_TENANT);
  d.services.webhooks.start(SILENT);
  t.teardown(() => d.services.webhooks.stop());
  await settle();
  t.equal(open.get(`http://127.0.0.1:9/${tenant}`), MAX_IN_FLIGHT_PER_TENANT, `${MAX_IN_FLIGHT_PER_TENANT} attempts, one per workload, the rest wait`);
});

t.test('hanging tenants share the pool in turn, and a tenant arriving when it is spent still gets its own slot', async (t) => {
  const open = hangingFetch(t);
  const d = domainServices(t, { webhookTimeoutMs: 60_000 });
  const TENANTS = 8;
  const hanging: string[] = [];
  for (let i = 0; i < TENANTS; i++) hanging.push(await tenantWithDue(d, 2 * MAX_IN_FLIGHT_PER_TENANT));
  d.services.webhooks.start(SILENT);
  t.teardown(() => d.services.webhooks.stop());
  await settle();
  const counts = hanging.map((id) => open.get(`http://127.0.0.1:9/${id}`) ?? 0);
  t.equal(counts.reduce((a, b) => a + b, 0), TENANTS + SHARED_IN_FLIGHT, 'each tenant\'s own slot and the whole shared pool are busy');
  t.same(counts, hanging.map(() => 1 + SHARED_IN_FLIGHT / TENANTS), 'the pool handed out in turn: every tenant holds as many as every other');

  const late = await tenantWithDue(d, 2);
  await settle();
  t.equal(open.get(`http://127.0.0.1:9/${late}`), 1, 'one attempt of the tenant that came last starts though the pool is spent');
});
