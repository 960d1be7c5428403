import { createServer, type AddressInfo } from 'node:net';
import t from '../../helpers/tap.js';
import { MAX_IN_FLIGHT_PER_TENANT, RETRY_AFTER_MS } from '../../../server/domain/webhooks/delivery.js';
import { advance, launchRun, legCounting } from '../../helpers/rl.js';
import type { Config } from '../../../server/config.js';
import { startInProcess, type Teardown, type TestServer } from '../../helpers/server.js';
import { startReceiver, verifies, type Receiver } from '../../helpers/webhook-receiver.js';

const failing = (status: number) => (_req: unknown, res: import('node:http').ServerResponse) => {
  res.statusCode = status;
  res.end('nope');
};

/** A manual-clock server whose tenant has one run whose `accepted` is due, and a receiver. */
async function oneDue(t: Teardown, overrides: Partial<Config> = {}): Promise<{ s: TestServer; receiver: Receiver; secret: string; workload: string }> {
  const receiver = await startReceiver(t);
  const s = await startInProcess(t, { clock: 'manual', ...overrides });
  const { secret } = (await s.call('PUT', '/v1/webhooks', { body: { url: receiver.url } })).body;
  const { id } = await launchRun(s, legCounting());
  return { s, receiver, secret, workload: id };
}

const deliveries = async (s: TestServer, query = '') => (await s.call('GET', `/_mock/webhooks/deliveries${query}`)).body.deliveries;
const flush = async (s: TestServer) => (await s.call('POST', '/_mock/webhooks/flush')).body;

t.test('a failing receiver gets the same delivery again once the virtual clock passes the backoff', async (t) => {
  const { s, receiver, secret } = await oneDue(t);
  receiver.answer = failing(500);
  t.same(await flush(s), { due: 0, pending: 1 }, 'after the flush nothing is due: the one delivery waits for its retry');
  t.equal(receiver.received.length, 1);
  const [first] = await deliveries(s);
  t.match(first, { type: 'workload.accepted', state: 'pending', last_error: 'the receiver answered 500' });
  t.equal(first.attempts.length, 1);
  const attempt = first.attempts[0];
  t.match(attempt, { attempt: 1, status_code: 500, error: 'the receiver answered 500', url: receiver.url, fault_id: null });
  t.ok(attempt.latency_ms >= 0);
  t.equal(Date.parse(attempt.next_retry_at) - Date.parse(attempt.at), 60_000, 'the first retry is a virtual minute later');
  t.equal(first.next_attempt_at, attempt.next_retry_at);

  await advance(s, 59);
  await flush(s);
  t.equal(receiver.received.length, 1, 'not before the backoff has passed');
  await advance(s, 1);
  await flush(s);
  t.equal(receiver.received.length, 2, 'a clock advance past it sends the retry');
  const [a, b] = receiver.received;
  t.equal(b.headers['webhook-id'], a.headers['webhook-id'], 'the same webhook-id');
  t.equal(b.body, a.body, 'the same body');
  t.ok(verifies(secret, b), 'signed again, for its own timestamp');

  receiver.answer = (_req, res) => res.end('ok');
  await advance(s, 300);
  await flush(s);
  const [done] = await deliveries(s, '?state=delivered');
  t.equal(done.id, first.id);
  t.same(done.attempts.map((x: any) => x.status_code), [500, 500, 200]);
  t.equal(done.next_attempt_at, null);
  t.same(receiver.received.map((r) => r.event.type).slice(0, 4), ['workload.accepted', 'workload.accepted', 'workload.accepted', 'workload.planning'],
    'the run\'s later changes (due by now) follow once it is through');
});

t.test('a delivery that keeps failing follows the whole schedule, then fails; redeliver sends it again', async (t) => {
  const { s, receiver } = await oneDue(t);
  receiver.answer = failing(503);
  await flush(s);
  for (const ms of RETRY_AFTER_MS) {
    await advance(s, ms / 1000);
    await flush(s);
  }
  const [failed] = await deliveries(s);
  t.equal(failed.state, 'failed');
  t.equal(failed.attempts.length, RETRY_AFTER_MS.length + 1, 'six attempts');
  t.same(
    failed.attempts.map((a: any) => (a.next_retry_at === null ? null : Date.parse(a.next_retry_at) - Date.parse(a.at))),
    [...RETRY_AFTER_MS, null],
    '1 min, 5 min, 30 min, 2 h, 12 h, then none',
  );
  t.equal(receiver.received.filter((r) => r.headers['webhook-id'] === failed.id).length, 6, 'the same webhook-id each time');
  const [next] = await deliveries(s, '?state=pending');
  t.equal(next.type, 'workload.planning');
  t.ok(next.attempts.length > 0, 'the next change of the workload went once the first had failed');

  receiver.answer = (_req, res) => res.end();
  const again = await s.call('POST', `/_mock/webhooks/deliveries/${failed.id}/redeliver`);
  t.equal(again.status, 200);
  t.match(again.body, { id: failed.id, state: 'pending' });
  await flush(s);
  const [redelivered] = await deliveries(s, `?workload_id=${failed.workload_id}&limit=1`);
  t.equal(redelivered.state, 'delivered');
  t.equal(redelivered.attempts.length, 7);
  t.equal(receiver.received.filter((r) => r.headers['webhook-id'] === failed.id).length, 7);

  const missing = await s.call('POST', '/_mock/webhooks/deliveries/msg_nope/redeliver');
  t.equal(missing.status, 404);
  t.equal(missing.body.error, 'not_found');
  await s.call('DELETE', '/v1/webhooks');
  const orphan = await s.call('POST', `/_mock/webhooks/deliveries/${failed.id}/redeliver`);
  t.equal(orphan.status, 409);
  t.equal(orphan.body.error, 'webhook_not_configured');
  t.same(await deliveries(s, '?state=pending'), []);
  const dropped = (await deliveries(s, '?state=failed')).filter((d: any) => d.id !== failed.id);
  t.ok(dropped.length > 0);
  t.same(new Set(dropped.map((d: any) => d.last_error)), new Set(['the webhook was deleted before this was delivered']),
    'what was pending when the webhook was deleted has failed');
});

t.test('deliveries of a workload go in order: a later one waits for the earlier', async (t) => {
  const { s, receiver } = await oneDue(t);
  receiver.answer = failing(500);
  await flush(s);
  await advance(s, 30);
  t.same(await flush(s), { due: 0, pending: 4 }, 'planning, reserving and provisioning are due but wait behind accepted');
  t.same(receiver.received.map((r) => r.event.type), ['workload.accepted']);
  receiver.answer = (_req, res) => res.end();
  await advance(s, 30);
  await flush(s);
  t.same(receiver.received.map((r) => r.event.type), ['workload.accepted', 'workload.accepted', 'workload.planning', 'workload.reserving', 'workload.provisioning']);
});

t.test('fault rules act on the mock\'s own deliveries', async (t) => {
  const { s, receiver } = await oneDue(t, { webhookTimeoutMs: 300 });
  const rule = (await s.call('POST', '/_mock/faults', {
    body: { method: 'POST', path: '/webhook/*', action: { type: 'error', status: 503, error: 'receiver_down' } },
  })).body;
  await flush(s);
  t.equal(receiver.received.length, 0, 'an error rule answers in place of the receiver');
  let [d] = await deliveries(s);
  t.match(d.attempts[0], { status_code: 503, fault_id: rule.id });
  t.match(d.attempts[0].error, /receiver_down/);

  await s.call('POST', '/_mock/faults', { body: { path: '/webhook/{id}/workload.accepted', action: { type: 'drop_response' } } });
  await advance(s, 60);
  await flush(s);
  t.equal(receiver.received.length, 1, 'a dropped answer: the receiver got it');
  [d] = await deliveries(s);
  t.match(d.attempts[1], { status_code: null, error: /was dropped/ });
  t.equal(d.state, 'pending', 'but the mock did not see it answered, so it is sent again');

  await s.call('POST', '/_mock/faults', { body: { path: '/webhook/*', action: { type: 'delay', ms: 5000 } } });
  await advance(s, 300);
  await flush(s);
  [d] = await deliveries(s);
  t.match(d.attempts[2], { status_code: null, error: 'no answer within 300 ms (--webhook-timeout-ms)' }, 'a stall longer than the timeout fails the attempt');
  t.equal(receiver.received.length, 1);

  await advance(s, 1800);
  await flush(s);
  [d] = await deliveries(s);
  t.equal(d.state, 'delivered');
  t.equal(receiver.received.filter((r) => r.headers['webhook-id'] === d.id).length, 2, 'at least once: twice, with one id');
  const faults = (await s.call('GET', '/_mock/faults')).body.faults;
  t.same(faults.map((f: any) => f.applied), [1, 1, 1]);
});

t.test('a redelivered delivery that fails again starts the retry schedule afresh', async (t) => {
  const { s, receiver } = await oneDue(t);
  receiver.answer = failing(503);
  await flush(s);
  for (const ms of RETRY_AFTER_MS) {
    await advance(s, ms / 1000);
    await flush(s);
  }
  const [failed] = await deliveries(s);
  t.equal(failed.state, 'failed');

  t.equal((await s.call('POST', `/_mock/webhooks/deliveries/${failed.id}/redeliver`)).status, 200);
  await flush(s);
  let [d] = await deliveries(s, `?workload_id=${failed.workload_id}&limit=1`);
  t.equal(d.state, 'pending', 'a failure after redelivery is retried, not failed at once');
  const seventh = d.attempts[RETRY_AFTER_MS.length + 1];
  t.equal(Date.parse(seventh.next_retry_at) - Date.parse(seventh.at), RETRY_AFTER_MS[0], 'the first step again: a virtual minute');
  for (const ms of RETRY_AFTER_MS) {
    await advance(s, ms / 1000);
    await flush(s);
  }
  [d] = await deliveries(s, `?workload_id=${failed.workload_id}&limit=1`);
  t.equal(d.state, 'failed');
  t.same(
    d.attempts.slice(RETRY_AFTER_MS.length + 1).map((a: any) => (a.next_retry_at === null ? null : Date.parse(a.next_retry_at) - Date.parse(a.at))),
    [...RETRY_AFTER_MS, null],
    'six more attempts on the whole schedule',
  );
});

t.test('a receiver that never answers holds one attempt until the timeout, not the server', async (t) => {
  const { s, receiver } = await oneDue(t, { webhookTimeoutMs: 500 });
  receiver.answer = () => undefined;
  const flushed = s.call('POST', '/_mock/webhooks/flush');
  await receiver.waitFor(1);
  t.equal((await s.call('GET', '/v1/me')).status, 200, 'the server answers while the receiver holds the delivery');
  t.same((await flushed).body, { due: 0, pending: 1 });
  const [d] = await deliveries(s);
  t.match(d.attempts[0], { status_code: null, error: 'no answer within 500 ms (--webhook-timeout-ms)' });
});

t.test('at most a few attempts of one tenant are in flight at once', async (t) => {
  const receiver = await startReceiver(t);
  let open = 0;
  let most = 0;
  receiver.answer = (_req, res) => {
    most = Math.max(most, ++open);
    setTimeout(() => {
      open--;
      res.end();
    }, 50);
  };
  const s = await startInProcess(t, { clock: 'manual' });
  await s.call('PUT', '/v1/webhooks', { body: { url: receiver.url } });
  for (let i = 0; i < MAX_IN_FLIGHT_PER_TENANT + 3; i++) await launchRun(s, legCounting());
  t.same(await flush(s), { due: 0, pending: 0 });
  t.equal(receiver.received.length, MAX_IN_FLIGHT_PER_TENANT + 3, 'every run\'s accepted arrived');
  t.ok(most <= MAX_IN_FLIGHT_PER_TENANT, `${most} at once`);
  // docs/webhooks.md: different workloads go side by side, so a limit of one would break the promise.
  t.ok(most > 1, `different workloads' attempts overlap (${most} at once)`);
});

t.test('a redirect is not followed: it fails the attempt and its Location hears nothing', async (t) => {
  // 307 keeps the method and body, so a client that followed it would deliver the event elsewhere.
  for (const status of [307, 302]) {
    const { s, receiver } = await oneDue(t);
    const elsewhere = await startReceiver(t);
    receiver.answer = (_req, res) => {
      res.statusCode = status;
      res.setHeader('location', elsewhere.url);
      res.end();
    };
    t.same(await flush(s), { due: 0, pending: 1 }, `${status}`);
    const [d] = await deliveries(s);
    t.match(d.attempts[0], { status_code: status, error: `the receiver answered ${status}` });
    t.equal(d.state, 'pending', 'retried like any other failure');
    t.equal(elsewhere.received.length, 0, 'the redirect target got nothing');
  }
});

t.test('refused or unreachable receivers fail the attempt, never the server', async (t) => {
  const { s } = await oneDue(t);
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  await s.call('PUT', '/v1/webhooks', { body: { url: `http://127.0.0.1:${port}/hook` } });
  t.same(await flush(s), { due: 0, pending: 1 });
  const [d] = await deliveries(s);
  t.match(d.attempts[0], { status_code: null, error: /^could not connect: ECONNREFUSED/ });
});

t.test('the list filters by workload and state; reset empties it', async (t) => {
  const { s, receiver, workload } = await oneDue(t);
  const other = await launchRun(s, legCounting());
  await flush(s);
  t.equal(receiver.received.length, 2);
  t.same((await deliveries(s, `?workload_id=${workload}`)).map((d: any) => d.workload_id), [workload]);
  t.equal((await deliveries(s, '?state=delivered')).length, 2);
  t.same(await deliveries(s, '?state=failed'), []);
  t.same((await deliveries(s, '?limit=1')).map((d: any) => d.workload_id), [workload], 'oldest first');
  t.equal((await s.call('GET', '/_mock/webhooks/deliveries?limit=0')).status, 400);
  const tooMany = await s.call('GET', '/_mock/webhooks/deliveries?limit=1001');
  t.equal(tooMany.status, 400, 'at most 1000');
  t.equal(tooMany.body.error, 'invalid_request');
  t.equal((await s.call('GET', '/_mock/webhooks/deliveries?limit=1000')).status, 200, 'the limit itself is accepted');
  t.equal((await s.call('GET', '/_mock/webhooks/deliveries?state=lost')).status, 400);
  t.ok(other.id);

  const reset = await s.call('POST', '/_mock/reset');
  t.equal(reset.body.deleted.webhooks, 1);
  t.same(await deliveries(s), []);
  t.equal((await s.call('GET', '/v1/webhooks')).status, 404);
});
