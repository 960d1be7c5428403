import { connect } from 'node:net';
import t from '../../helpers/tap.js';
import { legCounting, workloadCount } from '../../helpers/rl.js';
import { startInProcess, startServer, type TestServer } from '../../helpers/server.js';

const addFault = async (s: TestServer, rule: Record<string, unknown>, key?: string) => {
  const res = await s.call('POST', '/_mock/faults', { body: rule, key });
  if (res.status !== 201) throw new Error(`fault refused: ${res.status} ${res.text}`);
  return res.body;
};

const errorAction = (status: number, extra: Record<string, unknown> = {}) => ({ type: 'error', status, error: `code_${status}`, ...extra });

/** A launch body the way the SDK sends it: the preview's configuration and its review token. */
async function launchBody(s: TestServer) {
  const p = (await s.call('POST', '/v1/rl-runs/preview', { body: legCounting() })).body;
  return { ...p.configuration, review_token: p.review_token };
}

t.test('POST answers 201 with the normalised rule; GET lists it; DELETE removes it', async (t) => {
  const s = await startInProcess(t);
  const created = await s.call('POST', '/_mock/faults', { body: { path: '/v1/me', action: { type: 'reset' } } });
  t.equal(created.status, 201);
  t.match(created.body, {
    id: /^flt_[A-Za-z0-9]{16}$/, method: null, path: '/v1/me', times: 1, after: 0,
    action: { type: 'reset' }, remaining: 1, seen: 0, applied: 0, source: 'api', created_at: /Z$/,
  });
  const error = await addFault(s, { method: 'POST', path: '/v1/rl-runs', times: 3, after: 2, action: errorAction(503) });
  t.same(error.action, { type: 'error', status: 503, error: 'code_503', message: 'fault injected by nodus-mock' }, 'message defaults');
  const list = await s.call('GET', '/_mock/faults');
  t.same(list.body.faults.map((f: any) => f.id), [created.body.id, error.id], 'oldest first');

  t.equal((await s.call('GET', '/_mock/faults', { key: 'nk_test_someone_else' })).body.faults.length, 0, 'per tenant');
  t.equal((await s.call('DELETE', `/_mock/faults/${created.body.id}`, { key: 'nk_test_someone_else' })).status, 404, "another tenant's rule is not found");
  t.equal((await s.call('DELETE', `/_mock/faults/${created.body.id}`)).status, 204);
  const again = await s.call('DELETE', `/_mock/faults/${created.body.id}`);
  t.equal(again.status, 404);
  t.equal(again.body.error, 'not_found');
  t.equal((await s.call('DELETE', '/_mock/faults')).status, 204);
  t.same((await s.call('GET', '/_mock/faults')).body.faults, []);
});

t.test('bad rules are 400 envelopes naming the field', async (t) => {
  const s = await startInProcess(t);
  const cases: [Record<string, unknown>, string][] = [
    [{ action: { type: 'reset' } }, 'body.path'],
    [{ path: 'v1/me', action: { type: 'reset' } }, 'body.path'],
    [{ path: '/v1/me?x=1', action: { type: 'reset' } }, 'body.path'],
    [{ path: '/v1/*/events', action: { type: 'reset' } }, 'body.path'],
    [{ path: '/v1/{id', action: { type: 'reset' } }, 'body.path'],
    [{ path: '/v1/me', method: 'FETCH', action: { type: 'reset' } }, 'body.method'],
    [{ path: '/v1/me', times: 0, action: { type: 'reset' } }, 'body.times'],
    [{ path: '/v1/me', after: -1, action: { type: 'reset' } }, 'body.after'],
    [{ path: '/v1/me', times: 1.5, action: { type: 'reset' } }, 'body.times'],
    [{ path: '/v1/me' }, 'body.action'],
    [{ path: '/v1/me', action: { type: 'explode' } }, 'body.action'],
    [{ path: '/v1/me', action: errorAction(399) }, 'body.action.status'],
    [{ path: '/v1/me', action: errorAction(600) }, 'body.action.status'],
    [{ path: '/v1/me', action: { type: 'error', status: 503 } }, 'body.action.error'],
    [{ path: '/v1/me', action: { ...errorAction(503), error: 'has space' } }, 'body.action.error'],
    [{ path: '/v1/me', action: errorAction(429, { retry_after: -1 }) }, 'body.action.retry_after'],
    [{ path: '/v1/me', action: { type: 'delay', ms: 60_001 } }, 'body.action.ms'],
    [{ path: '/v1/me', action: { type: 'delay' } }, 'body.action.ms'],
    [{ path: '/v1/me', action: { type: 'reset', ms: 5 } }, 'body.action.ms'],
    [{ path: '/v1/me', action: { type: 'reset' }, extra: true }, 'body.extra'],
  ];
  for (const [body, field] of cases) {
    const res = await s.call('POST', '/_mock/faults', { body });
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body.error, 'invalid_request');
    t.match(res.body.message, field, JSON.stringify(body));
  }
  t.equal((await s.call('POST', '/_mock/faults', { raw: '{"path":', headers: { 'content-type': 'application/json' } })).body.error, 'invalid_json');
  t.same((await s.call('GET', '/_mock/faults')).body.faults, [], 'nothing was stored');
});

t.test('error: the envelope and Retry-After before the handler runs', async (t) => {
  const s = await startInProcess(t);
  await addFault(s, {
    method: 'POST', path: '/v1/rl-runs',
    action: { type: 'error', status: 503, error: 'spend_check_unavailable', message: 'spend check timed out', retry_after: 2 },
  });
  const body = await launchBody(s);
  const refused = await s.call('POST', '/v1/rl-runs', { body, headers: { 'idempotency-key': 'k1' } });
  t.equal(refused.status, 503);
  t.same(refused.body, { error: 'spend_check_unavailable', message: 'spend check timed out' });
  t.equal(refused.headers.get('retry-after'), '2');
  t.ok(refused.headers.get('x-request-id'));
  t.equal(workloadCount(s), 0, 'the handler did not run');
  const retried = await s.call('POST', '/v1/rl-runs', { body, headers: { 'idempotency-key': 'k1' } });
  t.equal(retried.status, 202, 'the same key works once the fault is spent');
  t.equal(retried.headers.get('idempotent-replayed'), null);

  await addFault(s, { path: '/v1/me', action: errorAction(429, { retry_after: 0.5 }) });
  const limited = await s.call('GET', '/v1/me');
  t.equal(limited.status, 429);
  t.equal(limited.headers.get('retry-after'), '0.5', 'fractional seconds, which the SDK reads as a float');
  const plain = await addFault(s, { path: '/v1/me', action: errorAction(500) });
  const noHint = await s.call('GET', '/v1/me');
  t.equal(noHint.status, 500);
  t.equal(noHint.headers.get('retry-after'), null);
  t.equal(noHint.body.message, 'fault injected by nodus-mock');
  t.equal((await s.call('GET', '/_mock/faults')).body.faults.find((f: any) => f.id === plain.id).remaining, 0);
});

/** Resolves once the tenant's first fault rule has been taken by a request (each look is a request, no timer). */
async function untilApplied(s: TestServer) {
  while ((await s.call('GET', '/_mock/faults')).body.faults[0].applied === 0);
}

// A delay is real time by design; the shortest one shows what follows it, and the hold itself is
// shown by a delay that never runs out, cut short by close (below).
t.test('delay: then handles the request normally; only the first match waits', async (t) => {
  const s = await startInProcess(t);
  const rule = await addFault(s, { method: 'GET', path: '/v1/me', action: { type: 'delay', ms: 1 } });
  const slow = await s.call('GET', '/v1/me');
  t.equal(slow.status, 200, 'the held request is handled');
  const next = await s.call('GET', '/v1/me');
  t.equal(next.status, 200);
  t.same(slow.body, next.body, 'as it would have been without the fault');
  const journal = (await s.call('GET', '/_mock/requests?path=/v1/me')).body.requests;
  const entry = (r: typeof slow) => journal.find((e: any) => e.request_id === r.headers.get('x-request-id'));
  t.match(entry(slow), { fault: 'delay', fault_id: rule.id });
  t.match(entry(next), { fault: null, fault_id: null }, 'the delay applied to the first only');
});

// On a socket: what is under test is close() with a connection still open. Without the abort on
// close, close() would wait out the 60 s delay and overrun this timeout; a bound on the test rather
// than a measured duration, so a slow machine does not fail it.
t.test('a delay holds its request while later ones are answered; the app closes while it waits', { timeout: 30_000 }, async (t) => {
  const s = await startServer(t);
  await addFault(s, { method: 'GET', path: '/v1/me', action: { type: 'delay', ms: 60_000 } });
  let answered = false;
  const pending = s.call('GET', '/v1/me').then((r) => ((answered = true), r.status), () => 'rejected');
  await untilApplied(s);
  t.equal((await s.call('GET', '/v1/me')).status, 200);
  t.notOk(answered, 'a later request to the same path is answered while the first is held');
  await s.close();
  t.equal(await pending, 200, 'the delay is cut short and the request still answered');
});

// On sockets: a reset or a dropped answer is seen only by a client on a connection, and the counters under concurrent requests.
t.test('reset: the connection closes before the handler; nothing is committed', async (t) => {
  const s = await startServer(t);
  await addFault(s, { method: 'POST', path: '/v1/rl-runs', action: { type: 'reset' } });
  const body = await launchBody(s);
  await t.rejects(s.call('POST', '/v1/rl-runs', { body, headers: { 'idempotency-key': 'r1' } }), 'fetch fails');
  t.equal(workloadCount(s), 0);
  const retry = await s.call('POST', '/v1/rl-runs', { body, headers: { 'idempotency-key': 'r1' } });
  t.equal(retry.status, 202);
  t.equal(retry.headers.get('idempotent-replayed'), null, 'a first answer: nothing was stored before');
  t.equal(workloadCount(s), 1);
});

t.test('drop_response on a launch: committed, unanswered; the same-key retry replays it', async (t) => {
  const s = await startServer(t);
  const body = await launchBody(s);
  await addFault(s, { method: 'POST', path: '/v1/rl-runs', action: { type: 'drop_response' } });
  const headers = { 'idempotency-key': 'ambiguous-001' };
  await t.rejects(s.call('POST', '/v1/rl-runs', { body, headers }), 'the client gets no answer');
  t.equal(workloadCount(s), 1, 'but the launch was committed');

  const retry = await s.call('POST', '/v1/rl-runs', { body, headers });
  t.equal(retry.status, 202);
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  const stored = s.store.db.prepare('SELECT id FROM workloads').all() as { id: string }[];
  t.same(stored.map((w) => w.id), [retry.body.id], 'the replay names the one committed workload');
  t.equal(workloadCount(s), 1);

  const journal = (await s.call('GET', '/_mock/requests?path=/v1/rl-runs')).body.requests;
  t.match(journal, [
    { status: 202, replayed: true, fault: null, idempotency_key: 'ambiguous-001' },
    { status: null, fault: 'drop_response', idempotency_key: 'ambiguous-001', body: { review_token: body.review_token } },
  ]);

  // The retry read the record from the file and kept it: later ones are answered from memory,
  // before the body's checks, but after the fault rules.
  await addFault(s, { method: 'POST', path: '/v1/rl-runs', action: errorAction(503) });
  const faulted = await s.call('POST', '/v1/rl-runs', { body, headers });
  t.equal(faulted.status, 503, 'a rule applies to a retry that memory could answer');
  t.equal(faulted.headers.get('idempotent-replayed'), null);
  const after = await s.call('POST', '/v1/rl-runs', { body, headers });
  t.same([after.status, after.headers.get('idempotent-replayed'), after.body.id], [202, 'true', retry.body.id], 'once the rule is spent, it replays');
});

t.test('drop_response: not one byte of the answer reaches the socket', async (t) => {
  const s = await startServer(t);
  await addFault(s, { method: 'GET', path: '/v1/me', action: { type: 'drop_response' } });
  const port = new URL(s.url).port;
  const received = await new Promise<Buffer>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${s.key}\r\n\r\n`);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
  t.equal(received.length, 0);
  t.equal((await s.call('GET', '/v1/me')).status, 200, 'the next request is answered');
});

t.test('times and after are exact under 20 concurrent requests', async (t) => {
  const s = await startServer(t);
  const rule = await addFault(s, { method: 'GET', path: '/v1/me', after: 5, times: 7, action: errorAction(503) });
  const answers = await Promise.all(Array.from({ length: 20 }, () => s.call('GET', '/v1/me')));
  t.equal(answers.filter((a) => a.status === 503).length, 7);
  t.equal(answers.filter((a) => a.status === 200).length, 13);
  const after = (await s.call('GET', '/_mock/faults')).body.faults[0];
  t.match(after, { id: rule.id, seen: 12, applied: 7, remaining: 0 }, 'a spent rule stops counting');

  const drops = await addFault(s, { method: 'GET', path: '/v1/me', times: 4, action: { type: 'reset' } });
  const outcomes = await Promise.all(Array.from({ length: 20 }, () => s.call('GET', '/v1/me').then((r) => r.status, () => 'reset')));
  t.equal(outcomes.filter((o) => o === 'reset').length, 4);
  t.equal(outcomes.filter((o) => o === 200).length, 16);
  t.match((await s.call('GET', '/_mock/faults')).body.faults[1], { id: drops.id, applied: 4, remaining: 0 });
});

t.test('matching: method, exact path, template, prefix; query ignored', async (t) => {
  const s = await startInProcess(t);
  const hit = async (method: string, path: string) => (await s.call(method, path)).status === 599;
  await addFault(s, { method: 'GET', path: '/v1/me', times: 100, action: errorAction(599) });
  t.ok(await hit('GET', '/v1/me?verbose=1'), 'the query string is ignored');
  t.notOk(await hit('POST', '/v1/me'), 'another method');
  t.notOk(await hit('GET', '/v1/me/too'), 'exact means exact');
  await s.call('DELETE', '/_mock/faults');

  await addFault(s, { path: '/v1/workloads/{id}', times: 100, action: errorAction(599) });
  t.ok(await hit('GET', '/v1/workloads/wl_abc'), 'a template matches one segment');
  t.ok(await hit('DELETE', '/v1/workloads/wl_abc'), 'any method when absent');
  t.notOk(await hit('GET', '/v1/workloads'));
  t.notOk(await hit('GET', '/v1/workloads/wl_abc/events'));
  await s.call('DELETE', '/_mock/faults');

  await addFault(s, { path: '/v1/workloads/{id}/*', times: 100, action: errorAction(599) });
  t.ok(await hit('GET', '/v1/workloads/wl_abc/events'));
  t.ok(await hit('GET', '/v1/workloads/wl_abc/logs/live'));
  t.notOk(await hit('GET', '/v1/workloads/wl_abc'));
  await s.call('DELETE', '/_mock/faults');

  await addFault(s, { path: '/v1/rl-*', times: 100, action: errorAction(599) });
  t.ok(await hit('GET', '/v1/rl-recipes'));
  t.ok(await hit('POST', '/v1/rl-runs/preview'));
  t.notOk(await hit('GET', '/v1/me'));
});

t.test('several matching rules: the oldest one past its `after` applies', async (t) => {
  const s = await startInProcess(t);
  await addFault(s, { path: '/v1/me', action: errorAction(501) });
  await addFault(s, { path: '/v1/me', action: errorAction(502) });
  t.equal((await s.call('GET', '/v1/me')).status, 501);
  t.equal((await s.call('GET', '/v1/me')).status, 502);
  t.equal((await s.call('GET', '/v1/me')).status, 200);

  await s.call('DELETE', '/_mock/faults');
  await addFault(s, { path: '/v1/me', after: 1, action: errorAction(503) });
  await addFault(s, { path: '/v1/me', action: errorAction(504) });
  t.equal((await s.call('GET', '/v1/me')).status, 504, 'an older rule still letting requests through does not block a newer one');
  t.equal((await s.call('GET', '/v1/me')).status, 503);
});

t.test('faults never touch /_mock, health, the document, /docs or refused keys', async (t) => {
  const s = await startInProcess(t);
  await addFault(s, { path: '/*', times: 1000, action: errorAction(500) });
  for (const path of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
    t.equal((await s.call('GET', path, { key: null })).status, 200, path);
    t.equal((await s.call('GET', path)).status, 200, `${path} with a key`);
  }
  for (const path of ['/_mock/clock', '/_mock/faults', '/_mock/requests']) t.equal((await s.call('GET', path)).status, 200, path);
  t.equal((await s.call('GET', '/v1/me', { key: null })).status, 401, 'unauthenticated: the tenant is unknown');
  t.equal((await s.call('GET', '/v1/me', { key: 'nk_test_other' })).status, 200, "another tenant's rules do not apply");
  t.equal((await s.call('GET', '/v1/me')).status, 500, 'but /v1 is hit');
  t.equal((await s.call('GET', '/_mock/faults')).body.faults[0].seen, 1, 'only that request was counted');
});

t.test('counters live in SQLite and survive a restart', async (t) => {
  const first = await startInProcess(t);
  await addFault(first, { path: '/v1/me', times: 2, action: errorAction(503) });
  t.equal((await first.call('GET', '/v1/me')).status, 503);
  const { dbPath, key } = first;
  await first.close();
  const s = await startInProcess(t, { db: dbPath });
  t.match((await s.call('GET', '/_mock/faults', { key })).body.faults, [{ applied: 1, remaining: 1 }]);
  t.equal((await s.call('GET', '/v1/me', { key })).status, 503);
  t.equal((await s.call('GET', '/v1/me', { key })).status, 200);
});

t.test('a body that is not JSON is refused before any rule sees it', async (t) => {
  const s = await startInProcess(t);
  const rule = await addFault(s, { method: 'POST', path: '/v1/rl-runs', action: errorAction(503) });
  const bad = await s.call('POST', '/v1/rl-runs', { raw: '{"recipe":', headers: { 'content-type': 'application/json' } });
  t.equal(bad.status, 400, 'the parse error, not the rule\'s 503');
  t.equal(bad.body.error, 'invalid_json');
  t.match((await s.call('GET', '/_mock/faults')).body.faults, [{ id: rule.id, seen: 0, applied: 0, remaining: 1 }], 'the rule did not count it');
  t.equal((await s.call('POST', '/v1/rl-runs', { body: await launchBody(s) })).status, 503, 'the rule is live: the next JSON request gets it');
  t.match((await s.call('GET', '/_mock/faults')).body.faults, [{ id: rule.id, seen: 1, applied: 1, remaining: 0 }]);
});
