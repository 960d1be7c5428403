import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import t from '../../helpers/tap.js';
import { createLogger } from '../../../server/logger.js';
import { conforms } from '../../helpers/contract.js';
import { freshKey, startInProcess, startServer, type CallResult } from '../../helpers/server.js';

const VALUE = 'wandb-Vq8r2Lx9TmPz4Kd7';

/** What a SandboxError must carry; [] when the answer is one. */
function sandboxProblems(res: CallResult): string[] {
  const b = res.body;
  const problems = ['code', 'message', 'fix', 'url'].filter((k) => typeof b?.[k] !== 'string' || b[k] === '').map((k) => `${k} missing`);
  if ('error' in (b ?? {})) problems.push('carries the Error envelope\'s `error`');
  return problems;
}

t.test('put is versioned per name with a stable id; list shows metadata only; delete retires the name', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const first = await s.call('POST', '/v1/secrets', { body: { name: 'WANDB_API_KEY', value: VALUE } });
  t.equal(first.status, 201);
  conforms(t, 'POST', '/v1/secrets', first);
  t.match(first.body, { id: /^sec_[A-Za-z0-9]{20}$/, name: 'WANDB_API_KEY', version: 1 });

  await s.call('POST', '/_mock/clock/advance', { body: { seconds: 60 } });
  const second = await s.call('POST', '/v1/secrets', { body: { name: 'WANDB_API_KEY', value: `${VALUE}-rotated` } });
  t.equal(second.status, 201);
  t.same({ id: second.body.id, version: second.body.version }, { id: first.body.id, version: 2 }, 'the same id, the next version');
  t.ok(Date.parse(second.body.created_at) - Date.parse(first.body.created_at) === 60_000, 'created_at is the current version\'s');

  await s.call('POST', '/v1/secrets', { body: { name: '_other', value: 'x' } });
  const list = await s.call('GET', '/v1/secrets');
  t.equal(list.status, 200);
  conforms(t, 'GET', '/v1/secrets', list);
  t.same(list.body.secrets.map((m: { name: string; version: number }) => [m.name, m.version]), [['WANDB_API_KEY', 2], ['_other', 1]]);
  t.same(Object.keys(list.body.secrets[0]).sort(), ['created_at', 'id', 'name', 'version'], 'no value field at all');

  const deleted = await s.call('DELETE', '/v1/secrets/_other');
  t.equal(deleted.status, 204);
  t.equal(deleted.text, '');
  const again = await s.call('DELETE', '/v1/secrets/_other');
  t.equal(again.status, 404);
  t.same(sandboxProblems(again), []);
  t.equal(again.body.code, 'not_found');
  conforms(t, 'DELETE', '/v1/secrets/{name}', again);
  t.same((await s.call('GET', '/v1/secrets')).body.secrets.map((m: { name: string }) => m.name), ['WANDB_API_KEY']);

  const reborn = await s.call('POST', '/v1/secrets', { body: { name: '_other', value: 'y' } });
  t.equal(reborn.body.version, 1, 'a deleted name put again starts over');

  const stranger = await s.call('GET', '/v1/secrets', { key: freshKey() });
  t.same(stranger.body, { secrets: [] }, 'another tenant sees none of them');
  t.equal((await s.call('DELETE', '/v1/secrets/WANDB_API_KEY', { key: freshKey() })).status, 404, 'nor deletes them');
});

// On a socket: the error's url names the host the client reached.
t.test('each bad input is a 400 SandboxError with its own code and a fix', async (t) => {
  const s = await startServer(t);
  const cases: [string, unknown, string][] = [
    ['a name with a dash', { name: 'MY-KEY', value: 'v' }, 'invalid_secret'],
    ['a name starting with a digit', { name: '1KEY', value: 'v' }, 'invalid_secret'],
    ['a name over 128 characters', { name: `K${'x'.repeat(128)}`, value: 'v' }, 'invalid_secret'],
    ['an empty value', { name: 'KEY', value: '' }, 'invalid_secret'],
    ['a value over 4096 characters', { name: 'KEY', value: 'v'.repeat(4097) }, 'invalid_secret'],
    ['a value over 4096 UTF-8 bytes', { name: 'KEY', value: 'é'.repeat(2049) }, 'secret_too_large'],
    ['a NUL in the value', { name: 'KEY', value: 'a\u0000b' }, 'invalid_secret_value'],
    ['a reserved name', { name: 'NODUS_TOKEN', value: 'v' }, 'reserved_secret_name'],
    ['an unknown field', { name: 'KEY', value: 'v', scope: 'all' }, 'invalid_secret'],
    ['no value', { name: 'KEY' }, 'invalid_secret'],
  ];
  for (const [what, body, code] of cases) {
    const res = await s.call('POST', '/v1/secrets', { body });
    t.equal(res.status, 400, what);
    t.equal(res.body.code, code, what);
    t.same(sandboxProblems(res), [], `${what}: SandboxError`);
    conforms(t, 'POST', '/v1/secrets', res);
  }
  t.equal((await s.call('DELETE', '/v1/secrets/NODUS_TOKEN')).body.code, 'reserved_secret_name');
  t.same((await s.call('GET', '/v1/secrets')).body.secrets, [], 'nothing was stored');

  const unauthorized = await s.call('GET', '/v1/secrets', { key: null });
  t.equal(unauthorized.status, 401);
  t.same(sandboxProblems(unauthorized), [], 'the key check answers SandboxError here too');
  t.match(unauthorized.body.url, /^http:\/\/127\.0\.0\.1:\d+\/docs#\/Secrets$/);

  const notJson = await s.call('POST', '/v1/secrets', { raw: `{"name": "KEY", "value": ${VALUE}}`, headers: { 'content-type': 'application/json' } });
  t.equal(notJson.status, 400);
  t.equal(notJson.body.code, 'invalid_json');
  t.notMatch(notJson.text, VALUE.slice(0, 10), 'the parser\'s message, which quotes the body, is not passed on');
});

t.test('the tenant limit is 100 names; a new version of an existing name still goes in', async (t) => {
  const s = await startInProcess(t);
  for (let i = 0; i < 100; i++) t.equal((await s.call('POST', '/v1/secrets', { body: { name: `S${i}`, value: 'v' } })).status, 201);
  const over = await s.call('POST', '/v1/secrets', { body: { name: 'S100', value: 'v' } });
  t.equal(over.status, 400);
  t.equal(over.body.code, 'secret_limit_reached');
  t.equal((await s.call('POST', '/v1/secrets', { body: { name: 'S0', value: 'w' } })).body.version, 2);
});

t.test('a fault rule on a secrets route answers SandboxError', async (t) => {
  const s = await startInProcess(t);
  await s.call('POST', '/_mock/faults', { body: { method: 'POST', path: '/v1/secrets', action: { type: 'error', status: 503, error: 'unavailable', message: 'try later' } } });
  const res = await s.call('POST', '/v1/secrets', { body: { name: 'KEY', value: VALUE } });
  t.equal(res.status, 503);
  t.same(sandboxProblems(res), []);
  conforms(t, 'POST', '/v1/secrets', res);
});

t.test('a secret value is in no answer, journal row, log line or byte of the database', async (t) => {
  let logged = '';
  const stream = Object.assign(new Writable({ write(chunk, _enc, done) { logged += chunk; done(); } }), { isTTY: false });
  const s = await startInProcess(t, { clock: 'manual' }, { logger: createLogger('trace', stream as unknown as NodeJS.WriteStream) });
  const answers: string[] = [];
  const keep = (res: CallResult) => { answers.push(res.text); return res; };
  keep(await s.call('POST', '/v1/secrets', { body: { name: 'WANDB_API_KEY', value: VALUE } }));
  keep(await s.call('POST', '/v1/secrets', { body: { name: 'WANDB_API_KEY', value: VALUE } }));
  keep(await s.call('POST', '/v1/secrets', { body: { name: 'NODUS_X', value: VALUE } }));
  keep(await s.call('POST', '/v1/secrets', { body: { name: 'BIG', value: `${VALUE}${'é'.repeat(2100)}` } }));
  keep(await s.call('POST', '/v1/secrets', { raw: `{"name":"K","value":"${VALUE}"`, headers: { 'content-type': 'application/json' } }));
  keep(await s.call('GET', '/v1/secrets'));
  const conn = keep(await s.call('POST', '/v1/connections', { body: { name: 'wb', kind: 'wandb', secret: 'WANDB_API_KEY', entity: 'e', project: 'p', live_mode: true } }));
  keep(await s.call('GET', `/v1/connections/${conn.body.id}`));
  keep(await s.call('POST', `/v1/connections/${conn.body.id}/verify`));
  keep(await s.call('GET', '/v1/connections'));

  for (const text of answers) t.notMatch(text, VALUE, 'not in an answer');
  const journal = await s.call('GET', '/_mock/requests?path=/v1/secrets');
  const puts = journal.body.requests.filter((r: { method: string }) => r.method === 'POST');
  t.equal(puts.length, 5, 'every put is journaled');
  t.same(puts.filter((r: { body: unknown }) => r.body !== null).map((r: { body: { value: string } }) => r.body.value), ['[redacted]', '[redacted]', '[redacted]', '[redacted]'],
    'the JSON bodies are kept with the value redacted; the one that is not JSON is not kept at all');
  t.notMatch(journal.text, VALUE, 'not in the journal');

  t.match(logged, /"route":"\/v1\/secrets"/, 'the requests were logged');
  t.notMatch(logged, VALUE, 'not in the logs');
  const line: string[] = [];
  const probe = createLogger('info', Object.assign(new Writable({ write(chunk, _enc, done) { line.push(String(chunk)); done(); } }), { isTTY: false }) as unknown as NodeJS.WriteStream);
  probe.info({ body: { name: 'K', value: VALUE }, value: VALUE }, 'a careless line');
  t.notMatch(line.join(''), VALUE, 'a logged body\'s value is censored by the logger itself');
  t.match(line.join(''), /\[redacted\]/);

  await s.close();
  for (const file of readdirSync(dirname(s.dbPath))) {
    const bytes = readFileSync(join(dirname(s.dbPath), file));
    t.equal(bytes.indexOf(Buffer.from(VALUE)), -1, `not in ${file}`);
    t.equal(bytes.indexOf(Buffer.from(VALUE, 'utf16le')), -1, `not in ${file} as UTF-16 either`);
  }
});

t.test('a near miss of a put stores no part of its body: any method, any path under /v1/secrets, any shape', async (t) => {
  let logged = '';
  const stream = Object.assign(new Writable({ write(chunk, _enc, done) { logged += chunk; done(); } }), { isTTY: false });
  const s = await startInProcess(t, { clock: 'manual' }, { logger: createLogger('trace', stream as unknown as NodeJS.WriteStream) });
  const json = { 'content-type': 'application/json' };
  // Each case its own marker, so a failure names the shape that leaked.
  const cases: [string, (marker: string) => Promise<CallResult>][] = [
    ['PUT /v1/secrets (405)', (m) => s.call('PUT', '/v1/secrets', { body: { name: 'K', value: m } })],
    ['POST /v1/secrets/{name} (405)', (m) => s.call('POST', '/v1/secrets/K', { body: { name: 'K', value: m } })],
    ['PATCH /v1/secrets/{name} as text', (m) => s.call('PATCH', '/v1/secrets/K', { raw: m, headers: { 'content-type': 'text/plain' } })],
    ['DELETE /v1/secrets/{name} with a body', (m) => s.call('DELETE', '/v1/secrets/K', { body: { value: m } })],
    ['a path under /v1/secrets no route has', (m) => s.call('POST', '/v1/secrets/K/versions', { body: { value: m } })],
    ['a doubled slash', (m) => s.call('POST', '/v1//secrets', { body: { name: 'K', value: m } })],
    ['a percent-encoded path', (m) => s.call('POST', '/v1/%73ecrets', { body: { name: 'K', value: m } })],
    ['"secret" for "value"', (m) => s.call('POST', '/v1/secrets', { body: { name: 'K', secret: m } })],
    ['"Value" for "value"', (m) => s.call('POST', '/v1/secrets', { body: { name: 'K', Value: m } })],
    ['the value in an object', (m) => s.call('POST', '/v1/secrets', { body: { name: 'K', value: { token: m } } })],
    ['the value in the name', (m) => s.call('POST', '/v1/secrets', { body: { name: `not a name ${m}`, value: 'v' } })],
    ['an array', (m) => s.call('POST', '/v1/secrets', { body: [{ name: 'K', value: m }] })],
    ['a text body', (m) => s.call('POST', '/v1/secrets', { raw: `K=${m}`, headers: { 'content-type': 'text/plain' } })],
    ['JSON that does not parse', (m) => s.call('PUT', '/v1/secrets', { raw: `{"name":"K","value":"${m}"`, headers: json })],
    ['a body over the journal\'s 16 KiB', (m) => s.call('POST', '/v1/secrets', { body: { name: 'K', value: `${m}${'x'.repeat(20_000)}` } })],
    ['a body over the 1 MiB limit', (m) => s.call('PUT', '/v1/secrets', { raw: `{"value":"${m}${'x'.repeat(1_100_000)}"}`, headers: json })],
    ['the value in the query', (m) => s.call('POST', `/v1/secrets?value=${m}`, { body: { name: 'K', value: 'v' } })],
    ['the value in a header', (m) => s.call('POST', '/v1/secrets', { body: { name: 'K', value: 'v' }, headers: { 'x-secret-value': m } })],
  ];
  const markers: [string, string][] = [];
  for (const [what, send] of cases) {
    const marker = `nearmiss${markers.length}Z${randomBytes(6).toString('hex')}`;
    markers.push([what, marker]);
    const res = await send(marker);
    t.ok(res.status >= 200 && res.status < 500, `${what}: answered ${res.status}`);
  }
  const journal = await s.call('GET', '/_mock/requests?limit=100');
  t.equal(journal.body.requests.length, cases.length, 'every request is journaled');
  const put = journal.body.requests.find((r: { body: unknown }) => (r.body as { Value?: unknown } | null)?.Value !== undefined);
  t.same(put?.body, { name: 'K', Value: '[redacted]' }, 'a misspelt field shows by its name, its value redacted');
  t.same(journal.body.requests.filter((r: { headers: object }) => Object.keys(r.headers).length > 0), [], 'and no row of a secrets path keeps a header');
  const snapshot = await s.call('GET', '/_mock/snapshot');
  t.equal(snapshot.status, 200);
  const dir = dirname(s.dbPath);
  const files = () => readdirSync(dir).map((file) => [file, readFileSync(join(dir, file))] as const);
  const open = files();
  t.ok(open.some(([file]) => file.endsWith('-wal')), 'the WAL is read while the server runs');
  await s.close();
  const closed = files();
  for (const [what, marker] of markers) {
    t.notMatch(journal.text, marker, `${what}: not in the journal`);
    t.notMatch(snapshot.text, marker, `${what}: not in the snapshot`);
    t.notMatch(logged, marker, `${what}: not in the logs`);
    for (const [file, bytes] of [...open, ...closed]) t.equal(bytes.indexOf(Buffer.from(marker)), -1, `${what}: not in ${file}`);
  }
});
