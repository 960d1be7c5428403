import { Writable } from 'node:stream';
import pino from 'pino';
import t from '../../helpers/tap.js';
import { componentErrors, conforms } from '../../helpers/contract.js';
import { advance, launchRun, legCounting, lifecycleEvents } from '../../helpers/rl.js';
import { startInProcess } from '../../helpers/server.js';
import { startReceiver, verifies } from '../../helpers/webhook-receiver.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

t.test('PUT creates or replaces, GET never shows the secret, DELETE answers deleted', async (t) => {
  const s = await startInProcess(t);
  const none = await s.call('GET', '/v1/webhooks');
  t.equal(none.status, 404);
  t.equal(none.body.error, 'not_found', 'none configured: 404 in the envelope (the SDK raises NotFoundError)');

  const created = await s.call('PUT', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook' } });
  t.equal(created.status, 200);
  conforms(t, 'PUT', '/v1/webhooks', created);
  t.match(created.body, { url: 'http://127.0.0.1:9/hook', enabled: true });
  t.match(created.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/, 'a Standard Webhooks secret is generated');
  t.equal(Buffer.from(created.body.secret.slice(6), 'base64').length, 32);

  const read = await s.call('GET', '/v1/webhooks');
  t.equal(read.status, 200);
  conforms(t, 'GET', '/v1/webhooks', read);
  t.same(read.body, { url: 'http://127.0.0.1:9/hook', enabled: true });
  t.notMatch(read.text, created.body.secret.slice(6), 'the secret is not in the answer');

  const repeated = await s.call('PUT', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook' } });
  t.same(repeated.body, created.body, 'the SDK\'s retry of the same PUT changes nothing: same secret');

  const given = await s.call('PUT', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', secret: SECRET } });
  t.same(given.body, { url: 'http://127.0.0.1:9/hook', secret: SECRET, enabled: true }, 'a given secret replaces the generated one');
  t.same((await s.call('PUT', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', secret: SECRET } })).body, given.body);

  const moved = await s.call('PUT', '/v1/webhooks', { body: { url: 'http://localhost:9/other' } });
  t.equal(moved.body.url, 'http://localhost:9/other');
  t.not(moved.body.secret, SECRET, 'a replacement without a secret gets a new one');

  const deleted = await s.call('DELETE', '/v1/webhooks');
  t.equal(deleted.status, 200);
  t.same(deleted.body, { status: 'deleted' });
  conforms(t, 'DELETE', '/v1/webhooks', deleted);
  t.equal((await s.call('GET', '/v1/webhooks')).status, 404);
  t.same((await s.call('DELETE', '/v1/webhooks')).body, { status: 'deleted' }, 'deleting again (an SDK retry) is harmless');
});

t.test('a URL or secret the mock cannot use is a 400 that says why', async (t) => {
  const s = await startInProcess(t);
  const outside = await s.call('PUT', '/v1/webhooks', { body: { url: 'https://hooks.example.com/nodus' } });
  t.equal(outside.status, 400);
  t.equal(outside.body.error, 'webhook_url_not_allowed');
  t.match(outside.body.message, /--webhook-hosts \/ NODUS_MOCK_WEBHOOK_HOSTS/, 'the message names the setting');
  t.match(outside.body.message, /hooks\.example\.com/);

  for (const [body, field] of [
    [{ url: 'ftp://127.0.0.1/hook' }, 'body.url'],
    [{ url: 'not a url' }, 'body.url'],
    [{}, 'body.url'],
    [{ url: 'http://127.0.0.1:9/', secret: 'hunter2-not-whsec' }, 'body.secret'],
    [{ url: 'http://127.0.0.1:9/', secret: `whsec_${Buffer.alloc(8).toString('base64')}` }, 'body.secret'],
  ] as const) {
    const res = await s.call('PUT', '/v1/webhooks', { body });
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body.error, 'invalid_request');
    t.match(res.body.message, field);
    if ('secret' in body) t.notMatch(res.text, body.secret, 'the refused secret is not echoed');
  }
  const userinfo = await s.call('PUT', '/v1/webhooks', { body: { url: 'http://user:pw@127.0.0.1:9/' } });
  t.equal(userinfo.body.error, 'webhook_url_not_allowed');
  t.equal((await s.call('GET', '/v1/webhooks')).status, 404, 'nothing was stored');

  for (const url of ['http://127.0.0.1:9/', 'http://127.8.9.10:9/', 'http://[::1]:9/', 'http://localhost:9/', 'https://host.docker.internal/hook']) {
    t.equal((await s.call('PUT', '/v1/webhooks', { body: { url } })).status, 200, `${url} is allowed by default`);
  }
});

t.test('--webhook-hosts replaces the allowed hosts; * allows any', async (t) => {
  const s = await startInProcess(t, { webhookHosts: ['receiver.internal', '10.0.0.7'] });
  t.equal((await s.call('PUT', '/v1/webhooks', { body: { url: 'http://Receiver.Internal:8000/hook' } })).status, 200);
  t.equal((await s.call('PUT', '/v1/webhooks', { body: { url: 'https://10.0.0.7/hook' } })).status, 200);
  const loopback = await s.call('PUT', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/' } });
  t.equal(loopback.status, 400, 'loopback only when the list says loopback');
  t.match(loopback.body.message, /now: receiver\.internal,10\.0\.0\.7/);
  const any = await startInProcess(t, { webhookHosts: ['*'] });
  t.equal((await any.call('PUT', '/v1/webhooks', { body: { url: 'https://hooks.example.com/nodus' } })).status, 200);
});

t.test('the journal keeps the PUT without its secret', async (t) => {
  const s = await startInProcess(t);
  await s.call('PUT', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/hook', secret: SECRET } });
  await s.call('PUT', '/v1/webhooks', { raw: `{"url": "http://127.0.0.1:9/hook", "secret": "${SECRET}"`, headers: { 'content-type': 'application/json' } });
  const journal = await s.call('GET', '/_mock/requests?path=/v1/webhooks');
  t.equal(journal.body.requests.length, 2);
  const [broken, put] = journal.body.requests;
  t.same(put.body, { url: 'http://127.0.0.1:9/hook', secret: '[redacted]' }, 'the other fields stay assertable');
  t.equal(broken.status, 400);
  t.equal(broken.body, null, 'a body that does not parse cannot be redacted, so none of it is kept');
  t.notMatch(journal.text, SECRET.slice(6));
});

/** The status sequence the workload's own lifecycle events report. */
async function statuses(s: Awaited<ReturnType<typeof startInProcess>>, id: string): Promise<string[]> {
  return (await lifecycleEvents(s, id)).filter((e) => e.event_type === 'workload.status').map((e) => `workload.${e.payload.status}`);
}

t.test('a receiver on loopback gets every status change of a run, signed, in order', async (t) => {
  const receiver = await startReceiver(t);
  const s = await startInProcess(t, { clock: 'manual' });
  const { secret } = (await s.call('PUT', '/v1/webhooks', { body: { url: receiver.url } })).body;
  const { id, preview } = await launchRun(s, legCounting());
  // Recovery while running: recovering and running again, in a new generation, among the changes.
  while ((await s.call('GET', `/v1/workloads/${id}`)).body.status !== 'running') await advance(s, 5);
  t.equal((await s.call('POST', `/_mock/workloads/${id}/recover`, { body: {} })).status, 200);
  await advance(s, Math.ceil(preview.estimate.completion_seconds.high * 1.2) + 300);
  const flushed = await s.call('POST', '/_mock/webhooks/flush');
  t.same(flushed.body, { due: 0, pending: 0 });

  const expected = await statuses(s, id);
  t.ok(expected.includes('workload.recovering') && expected.at(-1) === 'workload.completed', expected.join(' '));
  t.same(receiver.received.map((r) => r.event.type), expected, 'one delivery per status change, in order');

  const final = (await s.call('GET', `/v1/workloads/${id}`)).body;
  const ids = new Set<string>();
  for (const got of receiver.received) {
    t.ok(verifies(secret, got), `${got.event.type} verifies with the secret`);
    t.equal(got.headers['webhook-id'], got.event.id, 'webhook-id is the event id');
    ids.add(got.event.id);
    t.match(got.headers['webhook-id'], /^msg_[A-Za-z0-9]{24}$/);
    t.ok(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000) < 300, 'webhook-timestamp is wall-clock seconds');
    t.equal(got.headers['content-type'], 'application/json');
    t.equal(got.headers.authorization, undefined, 'no API key goes to the receiver');
    t.same(Object.keys(got.event), ['type', 'id', 'created_at', 'data']);
    t.same(componentErrors('Workload', got.event.data), [], 'data is a contract Workload');
    t.equal(`workload.${got.event.data.status}`, got.event.type, 'data is the workload at that change');
    t.equal(got.event.data.updated_at, got.event.created_at, 'created_at is the change\'s virtual time');
    t.same(got.event.data.payload, final.payload);
    t.equal(got.event.data.id, id);
  }
  t.equal(ids.size, receiver.received.length, 'each change its own id');
  const completed = receiver.received.at(-1)!.event;
  t.same({ ...completed.data, meter: undefined, updated_at: undefined }, { ...final, meter: undefined, updated_at: undefined },
    'the completed workload is what GET answers (but for the meter\'s as_of and the time of later events)');
  const times = receiver.received.map((r) => Date.parse(r.event.created_at));
  t.same(times, [...times].sort((a, b) => a - b));
});

t.test('changes from before the webhook was set are not delivered, even when first materialised after it', async (t) => {
  const receiver = await startReceiver(t);
  // Realtime on a wall clock the test moves: virtual time passes with nothing materialised.
  let wall = Date.now();
  const s = await startInProcess(t, { clock: 'realtime', timeScale: 1 }, { wallNow: () => wall });
  const { id } = await launchRun(s, legCounting());
  wall += 60_000;
  await s.call('PUT', '/v1/webhooks', { body: { url: receiver.url } });
  const createdAt = Date.parse((await s.call('GET', `/v1/workloads/${id}`)).body.created_at);
  wall += 7_200_000;
  await s.call('POST', '/_mock/webhooks/flush');
  const all = await statuses(s, id);
  const later = (await lifecycleEvents(s, id))
    .filter((e) => e.event_type === 'workload.status' && Date.parse(e.created_at) >= createdAt + 60_000);
  t.ok(later.length > 0 && later.length < all.length, `${later.length} of ${all.length} changes came after the PUT`);
  t.same(receiver.received.map((r) => r.event.type), all.slice(all.length - later.length), 'the later changes only');
});

t.test('after DELETE nothing more is delivered', async (t) => {
  const receiver = await startReceiver(t);
  const s = await startInProcess(t, { clock: 'manual' });
  await s.call('PUT', '/v1/webhooks', { body: { url: receiver.url } });
  await launchRun(s, legCounting());
  await s.call('POST', '/_mock/webhooks/flush');
  const before = receiver.received.length;
  t.equal(before, 1, 'accepted');
  await s.call('DELETE', '/v1/webhooks');
  await advance(s, 7200);
  await launchRun(s, legCounting());
  await s.call('POST', '/_mock/webhooks/flush');
  t.equal(receiver.received.length, before, 'nothing more arrived');
});

t.test('a realtime clock delivers without anyone reading the workload', async (t) => {
  const receiver = await startReceiver(t);
  const s = await startInProcess(t, { clock: 'realtime', timeScale: 2000 });
  await s.call('PUT', '/v1/webhooks', { body: { url: receiver.url } });
  await launchRun(s, legCounting());
  const got = await receiver.waitFor(6, 30_000);
  t.same(got.slice(0, 2).map((r) => r.event.type), ['workload.accepted', 'workload.planning']);
});

t.test('the secret never reaches the logs', async (t) => {
  let logged = '';
  const stream = new Writable({ write(chunk, _enc, done) { logged += chunk; done(); } });
  const receiver = await startReceiver(t);
  receiver.answer = (_req, res) => { res.statusCode = 500; res.end(); };
  const s = await startInProcess(t, { clock: 'manual' }, { logger: pino({ level: 'trace' }, stream) });
  await s.call('PUT', '/v1/webhooks', { body: { url: receiver.url, secret: SECRET } });
  await s.call('PUT', '/v1/webhooks', { body: { url: 'http://127.0.0.1:9/', secret: `${SECRET}x` } });
  await s.call('GET', '/v1/webhooks');
  await launchRun(s, legCounting());
  await s.call('POST', '/_mock/webhooks/flush');
  t.ok(receiver.received.length > 0);
  t.match(logged, /webhook delivery attempt/, 'attempts are logged');
  t.notMatch(logged, SECRET.slice(6, 30));
});
