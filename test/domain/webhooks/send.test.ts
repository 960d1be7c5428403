import t from '../../helpers/tap.js';
import { FaultRule } from '../../../openapi/mock.js';
import type { DeliveryRow, WebhookRow } from '../../../store/webhooks.js';
import { send } from '../../../server/domain/webhooks/send.js';
import { domainServices } from '../../helpers/domain.js';
import type { Teardown } from '../../helpers/server.js';
import { stubFetch } from '../../helpers/webhook-receiver.js';

/*
 * One delivery attempt, without sockets: global fetch is replaced (stubFetch) by a receiver that
 * answers what each test asks and keeps what it was sent.
 */

function attempt(t: Teardown) {
  const d = domainServices(t);
  const tenant = d.tenant();
  const hook: WebhookRow = { tenantId: tenant, url: 'http://127.0.0.1:9/hook', secret: 'whsec_test', enabled: true, sinceMs: 0, updatedAtMs: 0 };
  const delivery: DeliveryRow = {
    seq: 1, id: 'evt_1', tenantId: tenant, workloadId: 'wl_1', type: 'workload.completed', body: '{"type":"workload.completed"}',
    state: 'pending', dueAtMs: 0, tries: 0, attempts: 0, lastError: null,
  } as DeliveryRow;
  const fault = (action: Record<string, unknown>) =>
    d.services.control.addFault(tenant, FaultRule.parse({ path: '/webhook/*', action })).id;
  return { d, delivery, fault, send: (stopped = new AbortController().signal) => send(d.services.context, delivery, hook, stopped) };
}

t.test('a 2xx answer delivers: the body signed, no key, redirects not followed', async (t) => {
  const sent = stubFetch(t, async () => new Response(null, { status: 204 }));
  const a = attempt(t);
  t.same(await a.send(), { statusCode: 204, error: null, faultId: null });
  t.equal(sent.length, 1);
  const { url, init } = sent[0];
  t.equal(url, 'http://127.0.0.1:9/hook');
  t.equal(init.body, a.delivery.body);
  t.equal(init.redirect, 'manual');
  const headers = init.headers as Record<string, string>;
  t.equal(headers['webhook-id'], 'evt_1');
  t.match(headers['webhook-signature'], /^v1,/);
  t.notOk('authorization' in headers, 'the team\'s key never leaves');
});

t.test('any other answer is a failure naming the status', async (t) => {
  stubFetch(t, async () => new Response('moved', { status: 302, headers: { location: 'http://elsewhere.test/' } }));
  t.same(await attempt(t).send(), { statusCode: 302, error: 'the receiver answered 302', faultId: null });
});

t.test('a receiver that cannot be reached is named by its error code', async (t) => {
  stubFetch(t, () => Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) })));
  t.same(await attempt(t).send(), { statusCode: null, error: 'could not connect: ECONNREFUSED', faultId: null });
});

t.test('fault rules on /webhook/*: an error or a reset sends nothing; a drop sends and loses the answer', async (t) => {
  const sent = stubFetch(t, async () => new Response(null, { status: 200 }));
  const a = attempt(t);
  const error = a.fault({ type: 'error', status: 503, error: 'unavailable' });
  t.same(await a.send(), { statusCode: 503, error: `fault ${error}: answered 503 unavailable without sending`, faultId: error });
  a.d.services.control.clearFaults(a.delivery.tenantId);
  const reset = a.fault({ type: 'reset' });
  t.same(await a.send(), { statusCode: null, error: `fault ${reset}: the connection was reset before sending`, faultId: reset });
  t.equal(sent.length, 0, 'neither reached the receiver');
  a.d.services.control.clearFaults(a.delivery.tenantId);
  const drop = a.fault({ type: 'drop_response' });
  t.same(await a.send(), { statusCode: null, error: `fault ${drop}: the receiver's answer (200) was dropped`, faultId: drop });
  t.equal(sent.length, 1, 'the dropped one was sent');
});

t.test('an attempt cut short by the shutdown answers nothing, to be sent again at the next start', async (t) => {
  stubFetch(t, () => Promise.reject(new DOMException('aborted', 'AbortError')));
  const stopped = new AbortController();
  stopped.abort();
  t.equal(await attempt(t).send(stopped.signal), undefined);
});
