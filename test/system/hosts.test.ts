// DNS rebinding: a page whose name is made to resolve to 127.0.0.1 reaches the mock with its own
// name in Host. Only the mock's own names are answered. Over real HTTP, since fetch sets Host itself.
import { request } from 'node:http';
import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { resolveCli } from '../../server/config.js';
import { startServer } from '../helpers/server.js';

/** A GET with the Host header given; answers the status and the parsed body. */
function getWithHost(url: string, path: string, host: string, key?: string): Promise<{ status: number; body: any; requestId?: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host };
    if (key) headers.authorization = `Bearer ${key}`;
    const req = request(`${url}${path}`, { headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, requestId: res.headers['x-request-id'] as string }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('by default only localhost, loopback addresses, the listening address and host.docker.internal are answered', async (t) => {
  const s = await startServer(t);
  const port = new URL(s.url).port;
  for (const host of [`localhost:${port}`, 'LOCALHOST', `127.0.0.1:${port}`, '127.9.8.7', `[::1]:${port}`, 'host.docker.internal:8080', 'app.localhost', 'localhost.']) {
    t.equal((await getWithHost(s.url, '/v1/me', host, s.key)).status, 200, `${host} is one of the mock's names`);
  }
  for (const host of ['evil.example', `evil.example:${port}`, 'localhost.evil.example', '10.1.2.3', 'nodus-mock:8080']) {
    const res = await getWithHost(s.url, '/v1/me', host, s.key);
    t.equal(res.status, 403, `${host} is refused`);
    t.equal(res.body.error, 'host_not_allowed');
    t.match(res.body.message, /--allowed-hosts/, 'the message names the flag');
    t.match(res.body.message, /NODUS_MOCK_ALLOWED_HOSTS/, 'and the variable');
    t.ok(res.requestId, 'the refusal carries X-Request-Id');
  }
  // The check lets the last allowed Host through unparsed: a refused one must not become it.
  for (const time of ['once', 'twice in a row']) {
    t.equal((await getWithHost(s.url, '/v1/me', 'rebound.example', s.key)).status, 403, `a refused Host is refused ${time}`);
  }
  t.equal((await getWithHost(s.url, '/v1/me', `localhost:${port}`, s.key)).status, 200, 'an allowed one after it is answered');
  t.equal((await getWithHost(s.url, '/v1/me', 'evil.example', s.key)).status, 403, 'and a refused one after that is refused');
  t.equal((await getWithHost(s.url, '/healthz', 'evil.example')).status, 403, 'public paths too');
  t.equal((await getWithHost(s.url, '/_mock/ui/', 'evil.example')).status, 403, 'and the inspector');
});

t.test('the OpenAPI document declares the probes\' 403 from the Host check: a probe has no other refusal but the URL limit', async (t) => {
  const doc = JSON.parse(readFileSync(join(packageRoot(), 'openapi', 'openapi.json'), 'utf8'));
  for (const path of ['/healthz', '/readyz']) t.ok('403' in doc.paths[path].get.responses, `GET ${path}`);
});

/** One request written as it is (fetch and http.request cannot send these); answers the status and the parsed body. */
function rawRequest(url: string, head: string): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('end', () => {
      const at = text.indexOf('\r\n\r\n');
      const body = text.slice(at + 4);
      resolve({ status: Number(text.slice(9, 12)), body: body.startsWith('{') ? JSON.parse(body) : undefined });
    });
    socket.on('error', reject);
    socket.end(`${head}\r\nConnection: close\r\n\r\n`);
  });
}

t.test('an absolute-form target\'s host is checked, not the Host header, and a Host that is not a name or an address is refused', async (t) => {
  const s = await startServer(t);
  const port = new URL(s.url).port;
  const auth = `Authorization: Bearer ${s.key}`;
  const refused = [
    ['an absolute-form target naming another host', `GET http://evil.example/v1/me HTTP/1.1\r\nHost: localhost\r\n${auth}`],
    ['an absolute-form target with credentials', `GET http://localhost@evil.example:${port}/v1/me HTTP/1.1\r\nHost: localhost\r\n${auth}`],
    ['an unclosed bracket', `GET /v1/me HTTP/1.1\r\nHost: [localhostX\r\n${auth}`],
    ['a name after the brackets', `GET /v1/me HTTP/1.1\r\nHost: [::1]evil.example\r\n${auth}`],
    ['a name in brackets', `GET /v1/me HTTP/1.1\r\nHost: [localhost]\r\n${auth}`],
    ['a port that is not a number', `GET /v1/me HTTP/1.1\r\nHost: localhost:80x\r\n${auth}`],
    ['a port over 65535', `GET /v1/me HTTP/1.1\r\nHost: localhost:99999\r\n${auth}`],
    ['credentials in the Host', `GET /v1/me HTTP/1.1\r\nHost: evil.example@localhost\r\n${auth}`],
    ['a path in the Host', `GET /v1/me HTTP/1.1\r\nHost: localhost/evil.example\r\n${auth}`],
    ['two Host headers', `GET /v1/me HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n${auth}`],
    ['an empty Host', `GET /v1/me HTTP/1.1\r\nHost: \r\n${auth}`],
  ];
  for (const [what, head] of refused) {
    const res = await rawRequest(s.url, head);
    t.equal(res.status, 403, `${what}: refused`);
    t.equal(res.body?.error, 'host_not_allowed', `${what}: ${res.body?.message}`);
  }
  const answered = [
    ['an absolute-form target naming the mock', `GET http://localhost:${port}/v1/me HTTP/1.1\r\nHost: evil.example\r\n${auth}`],
    ['an absolute-form target with a query', `GET http://127.0.0.1:${port}/v1/me?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}`],
    ['a bracketed address and a port', `GET /v1/me HTTP/1.1\r\nHost: [::1]:${port}\r\n${auth}`],
    ['an address without brackets', `GET /v1/me HTTP/1.1\r\nHost: ::1\r\n${auth}`],
    ['a name with a trailing dot and a port', `GET /v1/me HTTP/1.1\r\nHost: LocalHost.:${port}\r\n${auth}`],
    ['HTTP/1.0 without a Host', `GET /v1/me HTTP/1.0\r\n${auth}`],
  ];
  for (const [what, head] of answered) t.equal((await rawRequest(s.url, head)).status, 200, `${what}: answered`);
  const bad = await rawRequest(s.url, `GET /v1/me HTTP/1.1\r\nHost: [::1]evil.example\r\n${auth}`);
  t.match(bad.body.message, /"\[::1\]evil\.example" is not a host name or address/, 'the message quotes the Host as sent');
  const target = await rawRequest(s.url, `GET http://evil.example/v1/me HTTP/1.1\r\nHost: localhost\r\n${auth}`);
  t.match(target.body.message, /"evil\.example" is not one of them/, 'and names the target\'s host');
});

t.test('--allowed-hosts adds names; * answers any Host', async (t) => {
  const s = await startServer(t, { allowedHosts: ['nodus-mock', 'ci.runner.test'] });
  for (const host of ['nodus-mock:8080', 'ci.runner.test', 'localhost']) {
    t.equal((await getWithHost(s.url, '/v1/me', host, s.key)).status, 200, `${host} is answered`);
  }
  t.equal((await getWithHost(s.url, '/v1/me', 'other.test', s.key)).status, 403);

  const any = await startServer(t, { allowedHosts: ['*'] });
  t.equal((await getWithHost(any.url, '/v1/me', 'evil.example', any.key)).status, 200);

  const env = resolveCli([], { NODUS_MOCK_ALLOWED_HOSTS: 'Nodus-Mock, [fd00::1]' });
  t.same(env.kind === 'run' && env.config.allowedHosts, ['nodus-mock', 'fd00::1'], 'the variable, lower-cased, brackets removed');
  t.throws(() => resolveCli(['--allowed-hosts', 'a b'], {}), /--allowed-hosts \/ NODUS_MOCK_ALLOWED_HOSTS/);
});

t.test('listening on every interface, the machine\'s own addresses are its names', async (t) => {
  const s = await startServer(t, { host: '0.0.0.0' });
  t.equal((await getWithHost(s.url, '/v1/me', '127.0.0.1', s.key)).status, 200);
  t.equal((await getWithHost(s.url, '/v1/me', 'evil.example', s.key)).status, 403);
});

t.test('a webhook host under .localhost is not loopback unless listed: DNS could send it anywhere', async (t) => {
  const s = await startServer(t);
  const refused = await s.call('PUT', '/v1/webhooks', { body: { url: 'http://rebound.localhost:9/hook' } });
  t.equal(refused.status, 400);
  t.equal(refused.body.error, 'webhook_url_not_allowed');
  t.match(refused.body.message, /\.localhost is resolved by DNS/);
  const listed = await startServer(t, { webhookHosts: ['loopback', 'receiver.localhost'] });
  t.equal((await listed.call('PUT', '/v1/webhooks', { body: { url: 'http://receiver.localhost:9/hook' } })).status, 200, 'a name listed is trusted as listed');
});
