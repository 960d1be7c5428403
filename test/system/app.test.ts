import { connect } from 'node:net';
import t from '../helpers/tap.js';
import { freshKey, startInProcess, startServer } from '../helpers/server.js';
import { conforms } from '../helpers/contract.js';

t.test('health routes need no key and answer JSON', async (t) => {
  const s = await startInProcess(t);
  for (const path of ['/healthz', '/readyz']) {
    const res = await s.call('GET', path, { key: null });
    t.equal(res.status, 200, path);
    t.type(res.body, 'object');
    t.ok(res.headers.get('x-request-id'));
  }
});

t.test('readiness fails with 503 when the database is gone', async (t) => {
  const s = await startInProcess(t);
  s.store.close();
  const res = await s.call('GET', '/readyz', { key: null });
  t.equal(res.status, 503);
  t.equal(res.body.error, 'not_ready');
});

t.test('open mode: any nk_test_ key is its own tenant', async (t) => {
  const s = await startInProcess(t);
  const a = await s.call('GET', '/v1/me');
  t.equal(a.status, 200);
  conforms(t, 'GET', '/v1/me', a);
  t.match(a.body, { tenant: /^tn_/, key_id: /^key_/ });
  const again = await s.call('GET', '/v1/me');
  t.same(again.body, a.body, 'the same key maps to the same tenant');
  const b = await s.call('GET', '/v1/me', { key: freshKey() });
  t.not(b.body.tenant, a.body.tenant, 'another key is another tenant');
});

t.test('missing, malformed and foreign keys are 401 in the envelope', async (t) => {
  const s = await startInProcess(t);
  const cases: [string, Record<string, string>][] = [
    ['missing', {}],
    ['not bearer', { authorization: 'Basic abc' }],
    ['empty bearer', { authorization: 'Bearer ' }],
    ['wrong prefix', { authorization: 'Bearer nk_live_123' }],
    ['control characters', { authorization: 'Bearer nk_test_\u0001x' }],
  ];
  for (const [name, headers] of cases) {
    for (const path of ['/v1/me', '/_mock/clock', '/v1/does-not-exist']) {
      const res = await s.call('GET', path, { key: null, headers }).catch(() => undefined);
      if (!res) {
        t.equal(name, 'control characters', 'only an unsendable header may fail client-side');
        continue;
      }
      t.equal(res.status, 401, `${name} ${path}`);
      t.equal(res.body.error, 'unauthorized');
      t.type(res.body.message, 'string');
    }
  }
});

t.test('strict mode accepts only configured keys and maps key=tenant', async (t) => {
  const s = await startInProcess(t, { keys: [{ key: 'sk_one' }, { key: 'sk_two', tenant: 'team' }, { key: 'sk_three', tenant: 'team' }] });
  t.equal((await s.call('GET', '/v1/me', { key: 'sk_one' })).status, 200);
  t.equal((await s.call('GET', '/v1/me', { key: freshKey() })).status, 401, 'open-mode keys are refused');
  const two = await s.call('GET', '/v1/me', { key: 'sk_two' });
  const three = await s.call('GET', '/v1/me', { key: 'sk_three' });
  t.equal(two.body.tenant, 'team');
  t.equal(three.body.tenant, 'team', 'two keys, one tenant');
  t.not(two.body.key_id, three.body.key_id);
});

t.test('unknown routes 404, wrong methods 405 with Allow', async (t) => {
  const s = await startInProcess(t);
  const missing = await s.call('GET', '/v1/nothing-here');
  t.equal(missing.status, 404);
  t.equal(missing.body.error, 'not_found');
  const outside = await s.call('GET', '/nothing', { key: null });
  t.equal(outside.status, 404);
  t.equal(outside.body.error, 'not_found');
  const wrong = await s.call('DELETE', '/v1/me');
  t.equal(wrong.status, 405);
  t.equal(wrong.body.error, 'method_not_allowed');
  t.equal(wrong.headers.get('allow'), 'GET');
});

t.test('body errors: malformed JSON, duplicates, schema, size, media type', async (t) => {
  const s = await startInProcess(t);
  const put = (raw: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    s.call('PUT', '/_mock/clock', { raw, headers });

  const malformed = await put('{"mode": ');
  t.equal(malformed.status, 400);
  t.equal(malformed.body.error, 'invalid_json');

  const duplicate = await put('{"mode":"manual","mode":"realtime"}');
  t.equal(duplicate.status, 400);
  t.equal(duplicate.body.error, 'invalid_json');
  t.match(duplicate.body.message, 'body.mode');

  const proto = await put('{"mode":"manual","__proto__":{"x":1}}');
  t.equal(proto.status, 400);
  t.equal(proto.body.error, 'invalid_json');

  const wrongType = await put('{"mode":"manual","scale":"fast"}');
  t.equal(wrongType.status, 400);
  t.equal(wrongType.body.error, 'invalid_request');
  t.match(wrongType.body.message, 'body.scale');

  const unknown = await put('{"mode":"manual","speed":2}');
  t.equal(unknown.status, 400);
  t.match(unknown.body.message, 'body.speed');

  const nulls = await put('{"mode":null}');
  t.equal(nulls.status, 400);
  t.match(nulls.body.message, 'body.mode');

  const empty = await put('');
  t.equal(empty.status, 400);
  t.equal(empty.body.error, 'invalid_request');

  const array = await put('[1,2]');
  t.equal(array.status, 400);

  const big = await put(JSON.stringify({ mode: 'manual', pad: 'x'.repeat(1024 * 1024) }));
  t.equal(big.status, 413);
  t.equal(big.body.error, 'payload_too_large');

  const xml = await put('<clock/>', { 'content-type': 'application/xml' });
  t.equal(xml.status, 415);
  t.equal(xml.body.error, 'unsupported_media_type');
});

t.test('X-Request-Id: sane ones echoed, others replaced, present on errors', async (t) => {
  const s = await startInProcess(t);
  const echoed = await s.call('GET', '/v1/me', { headers: { 'x-request-id': 'my-trace.42' } });
  t.equal(echoed.headers.get('x-request-id'), 'my-trace.42');
  const replaced = await s.call('GET', '/v1/me', { headers: { 'x-request-id': 'has spaces and <script>' } });
  t.match(replaced.headers.get('x-request-id'), /^req_[0-9a-f]{32}$/);
  const error = await s.call('GET', '/v1/me', { key: null });
  t.match(error.headers.get('x-request-id'), /^req_/);
  const notFound = await s.call('GET', '/v1/none');
  t.ok(notFound.headers.get('x-request-id'));
});

t.test('a path the router cannot decode is refused in the envelope, with a request id', async (t) => {
  const s = await startInProcess(t);
  const res = await s.call('GET', '/v1/rl-runs/%E0%A4%A');
  t.equal(res.status, 400);
  t.equal(res.body.error, 'invalid_request');
  t.match(res.headers.get('x-request-id'), /^req_/);
});

t.test('oversized URLs and headers are refused in the envelope', async (t) => {
  const s = await startServer(t);
  const longQuery = await s.call('GET', `/v1/me?q=${'a'.repeat(9000)}`);
  t.equal(longQuery.status, 414);
  t.equal(longQuery.body.error, 'uri_too_long');

  const raw = await new Promise<string>((resolve, reject) => {
    const port = Number(new URL(s.url).port);
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20000)}\r\n\r\n`);
    });
    let data = '';
    socket.on('data', (d) => (data += d));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
  t.match(raw, /^HTTP\/1\.1 431/);
  t.match(raw, /"error":"headers_too_large"/);
});

t.test('unexpected failures are 500 internal without internals', async (t) => {
  const s = await startInProcess(t);
  s.store.close();
  const res = await s.call('GET', '/v1/me', { key: freshKey() });
  t.equal(res.status, 500);
  t.equal(res.body.error, 'internal');
  t.notMatch(res.text, /at |\.ts|\.js|database/i, 'no stack or internals');
  t.match(res.body.message, res.headers.get('x-request-id')!);
});
