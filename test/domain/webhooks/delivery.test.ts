import t from '../../helpers/tap.js';
import { domainServices, submit } from '../../helpers/domain.js';
import { stubFetch } from '../../helpers/webhook-receiver.js';

/*
 * The delivery worker checks the webhook again when an attempt's turn comes: the URL was allowed
 * when it was set, but the server may since have been started with other --webhook-hosts (or the
 * row restored from a snapshot), and the mock must never send to a host its settings refuse.
 */

t.test('a delivery to a host the settings now refuse fails without being sent', async (t) => {
  const sent = stubFetch(t, async () => new Response(null, { status: 204 }));
  const d = domainServices(t);
  const tenant = d.tenant();
  d.services.webhooks.put(tenant, { url: 'http://127.0.0.1:9/hook' });
  await submit(d.services, tenant);
  // Materialising announces the run's first status: one delivery due.
  await d.services.control.advanceClock(tenant, 1);
  d.config.webhookHosts = ['hooks.example.test'];

  t.same(await d.services.webhooks.flush(tenant), { due: 0, pending: 0 });
  t.same(sent, [], 'nothing went out');
  const [record] = d.services.webhooks.deliveries(tenant, { limit: 10 });
  t.equal(record.delivery.state, 'failed');
  t.match(record.delivery.lastError, /only to the hosts of --webhook-hosts .*127\.0\.0\.1 is not one of them/);
});
