import { readFileSync, existsSync } from 'node:fs';
import t from '../../helpers/tap.js';
import { legCounting, previewAndLaunch } from '../../helpers/rl.js';
import { freshKey, startInProcess, startServer, type TestServer } from '../../helpers/server.js';

const journal = async (s: TestServer, query = '', key?: string) => {
  const res = await s.call('GET', `/_mock/requests${query}`, { key });
  if (res.status !== 200) throw new Error(`journal: ${res.status} ${res.text}`);
  return res.body.requests as any[];
};

/** A request through app.inject: no socket, the same hooks and journal. */
const inject = async (s: TestServer, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, options: { body?: object; headers?: Record<string, string> } = {}) => {
  const res = await s.app.inject({ method, url, headers: { authorization: `Bearer ${s.key}`, ...options.headers }, payload: options.body });
  return { status: res.statusCode, body: res.body ? res.json() : null };
};

t.test('a launch and its replay as the journal shows them', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const now = (await s.call('POST', '/_mock/clock/advance', { body: { seconds: 3600 } })).body.now;
  const { preview, launch } = await previewAndLaunch(s, legCounting({ seed: 3 }), 'journal-key');
  const replay = await s.call('POST', '/v1/rl-runs', {
    body: { ...preview.body.configuration, review_token: preview.body.review_token },
    headers: { 'idempotency-key': 'journal-key' },
  });
  const rows = await journal(s, '?kind=api');
  t.equal(rows.length, 3);
  const [second, first, previewRow] = rows;
  t.ok(second.id > first.id && first.id > previewRow.id, 'newest first, ids increase');
  t.match(previewRow, {
    at: now, method: 'POST', path: '/v1/rl-runs/preview', query: {}, status: 200, idempotency_key: null,
    replayed: false, fault: null, fault_id: null, body: legCounting({ seed: 3 }), body_truncated: false,
  });
  t.equal(previewRow.request_id, preview.headers.get('x-request-id'));
  t.equal(previewRow.body_bytes, Buffer.byteLength(JSON.stringify(legCounting({ seed: 3 }))));
  t.match(first, { path: '/v1/rl-runs', status: 202, idempotency_key: 'journal-key', replayed: false, request_id: launch.headers.get('x-request-id') });
  t.match(second, { path: '/v1/rl-runs', status: 202, idempotency_key: 'journal-key', replayed: true, request_id: replay.headers.get('x-request-id') });
  t.same(second.body, first.body, 'the body the client sent, parsed');
  t.type(second.wall_at, 'string');
  t.type(second.duration_ms, 'number');
  t.equal(second.headers['idempotency-key'], 'journal-key', 'the headers as sent');

  const control = await journal(s, '?kind=control');
  t.match(control, [{ kind: 'control', method: 'POST', path: '/_mock/clock/advance', status: 200, body: { seconds: 3600 } }],
    'the test\'s own /_mock call, as its own kind; reading the journal is not journaled');
  t.ok(control[0].id < previewRow.id, 'numbered with the /v1 requests, in the order they were made');
  t.same((await journal(s)).map((r) => r.id), [second.id, first.id, previewRow.id, control[0].id], 'both kinds by default');
});

// On a socket, for the reset among the faults.
t.test('what was sent, whatever it was: query, bad JSON, text, unknown routes, faults', async (t) => {
  const s = await startServer(t);
  await s.call('GET', '/v1/rl-recipes?tag=a&tag=b&q=x%20y');
  await s.call('POST', '/v1/rl-runs/preview', { raw: '{"mode": ', headers: { 'content-type': 'application/json' } });
  await s.call('POST', '/v1/me', { raw: 'hello there', headers: { 'content-type': 'text/plain' } });
  await s.call('GET', '/v1/nowhere');
  await s.call('POST', '/_mock/faults', { body: { path: '/v1/me', action: { type: 'error', status: 503, error: 'x' } } });
  await s.call('POST', '/_mock/faults', { body: { path: '/v1/me', after: 1, action: { type: 'reset' } } });
  await s.call('GET', '/v1/me');
  await s.call('GET', '/v1/me').catch(() => undefined);
  await s.call('PUT', '/_mock/nowhere', { body: {} });
  const [reset, errored, unknown, text, badJson, query] = await journal(s, '?kind=api');
  t.same(query.query, { tag: ['a', 'b'], q: 'x y' });
  t.equal(query.path, '/v1/rl-recipes');
  t.match(badJson, { status: 400, body: '{"mode": ' }, 'invalid JSON is kept as text');
  t.match(text, { status: 405, body: 'hello there' });
  t.match(unknown, { status: 404, path: '/v1/nowhere', body: null, body_bytes: 0 });
  t.match(errored, { status: 503, fault: 'error', fault_id: /^flt_/ });
  t.match(reset, { status: null, fault: 'reset' });
  t.match(await journal(s, '?kind=control'), [
    { method: 'PUT', path: '/_mock/nowhere', status: 404 },
    { method: 'POST', path: '/_mock/faults', status: 201, body: { path: '/v1/me', after: 1 } },
    { method: 'POST', path: '/_mock/faults', status: 201, fault: null },
  ], 'control calls, an unknown one too');
  t.equal((await journal(s, '', freshKey())).length, 0, 'another tenant sees its own journal only');
  await s.call('GET', '/v1/me', { key: null });
  await s.call('GET', '/_mock/clock', { key: null });
  await s.call('GET', '/healthz', { key: null });
  t.equal((await journal(s)).length, 9, 'unauthenticated and health requests are not journaled');
});

t.test('bodies are cut at 16 KiB on a character boundary, with a marker', async (t) => {
  const s = await startInProcess(t);
  const big = { recipe_id: 'reasoning-gym-leg-counting', padding: `a${'é'.repeat(10_000)}` };
  const res = await s.call('POST', '/v1/rl-runs/preview', { body: big });
  t.equal(res.status, 400, 'refused, and still journaled');
  const [row] = await journal(s);
  const sent = Buffer.byteLength(JSON.stringify(big));
  t.equal(row.body_truncated, true);
  t.equal(row.body_bytes, sent);
  t.type(row.body, 'string');
  const [kept, marker] = row.body.split('…[cut');
  t.ok(Buffer.byteLength(kept) <= 16 * 1024 && Buffer.byteLength(kept) > 16 * 1024 - 4);
  t.ok(JSON.stringify(big).startsWith(kept), 'a prefix of what was sent, no broken character');
  t.equal(marker, ` at 16384 bytes of ${sent}]`);
});

t.test('headers are kept but credentials and cookies: never in the rows, never in the file', async (t) => {
  const s = await startInProcess(t);
  await previewAndLaunch(s, legCounting(), 'secret-check');
  const credentials = {
    cookie: 'session=cookie-value-xyz', 'proxy-authorization': 'Basic proxy-value-xyz', 'x-api-key': 'apikey-value-xyz',
  };
  await s.call('GET', '/v1/me', { headers: { 'x-extra': 'header-value-xyz', 'X-Trace': 'a', ...credentials } });
  await s.call('GET', '/_mock/clock', { headers: { 'x-extra': 'control-value-xyz', ...credentials } });
  // Rows wait in memory for their commit; a reader of the journal writes them first.
  const [control, me] = await journal(s);
  t.equal(me.headers['x-extra'], 'header-value-xyz');
  t.equal(me.headers['x-trace'], 'a', 'names lower-case');
  t.equal(control.headers['x-extra'], 'control-value-xyz', 'a control call\'s too');
  for (const row of [me, control]) {
    t.same(Object.keys(row.headers).filter((name) => /authorization|cookie|api-key/.test(name)), [], 'no credential header');
    t.equal(row.headers_truncated, false);
  }
  const rows = s.store.db.prepare('SELECT * FROM request_journal').all();
  t.equal(rows.length, 4);
  const dump = JSON.stringify(rows);
  t.notMatch(dump, s.key);
  t.notMatch(dump, /authorization|bearer/i);
  for (const value of ['cookie-value-xyz', 'proxy-value-xyz', 'apikey-value-xyz']) t.notMatch(dump, value);
  t.match(dump, 'secret-check', 'but the idempotency key is');
  s.store.db.pragma('wal_checkpoint(TRUNCATE)');
  for (const file of [s.dbPath, `${s.dbPath}-wal`]) {
    if (existsSync(file)) t.notOk(readFileSync(file).includes(s.key), `${file} does not hold the key`);
  }

  // Kept in arrival order up to the row's share: 64 headers or 8 KiB of names and values.
  const many = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`x-h${String(i).padStart(2, '0')}`, 'v']));
  const big = { 'x-first': 'a'.repeat(6000), 'x-second': 'b'.repeat(3000), 'x-third': 'c' };
  t.equal((await inject(s, 'GET', '/v1/me', { headers: many })).status, 200);
  t.equal((await inject(s, 'GET', '/v1/me', { headers: big })).status, 200);
  const [bigRow, manyRow] = await journal(s);
  t.equal(Object.keys(manyRow.headers).length, 64);
  t.equal(manyRow.headers_truncated, true);
  t.same(Object.keys(bigRow.headers).filter((name) => name.startsWith('x-')), ['x-first', 'x-third'], 'one that would pass 8 KiB is left out');
  t.equal(bigRow.headers_truncated, true);
});

t.test('a bounded ring per tenant: the oldest rows are evicted as new ones come', async (t) => {
  const s = await startInProcess(t, { journalSize: 5 });
  const other = freshKey();
  await s.call('GET', '/v1/me', { key: other });
  for (let i = 0; i < 8; i++) await s.call('GET', `/v1/me?i=${i}`);
  const page = await s.call('GET', '/_mock/requests');
  t.same(page.body.requests.map((r: any) => r.query.i), ['7', '6', '5', '4', '3']);
  t.equal(page.body.evicted, 3, 'says how many rows fell out');
  const stored = s.store.db.prepare('SELECT count(*) AS n FROM request_journal').get() as { n: number };
  t.equal(stored.n, 6, 'five rows for this tenant on disk, plus the other tenant\'s one');
  t.equal((await journal(s, '', other)).length, 1, 'eviction is per tenant');
  t.equal((await s.call('GET', '/_mock/requests', { key: other })).body.evicted, 0);
  t.match((await inject(s, 'POST', '/_mock/requests/match', { body: { path: '/v1/me' } })).body, { count: 5, evicted: 3 }, 'the matcher says so too');
  await inject(s, 'DELETE', '/_mock/requests');
  t.match((await s.call('GET', '/_mock/requests')).body, { requests: [], evicted: 0 }, 'a clear empties the journal, evicted rows included');
});

t.test('filters: paths as fault rules match them, method, kind, limit; a filter that can match nothing is 400', async (t) => {
  const s = await startInProcess(t);
  await s.call('GET', '/v1/me');
  await s.call('GET', '/v1/rl-recipes');
  await s.call('POST', '/v1/rl-runs/preview', { body: legCounting() });
  await s.call('POST', '/v1/rl-runs', { body: {} });
  await s.call('GET', '/v1/workloads/wl_missing');
  await s.call('GET', '/_mock/clock');
  const paths = async (query: string) => (await journal(s, query)).map((r) => r.path);
  t.same(await paths('?path=/v1/rl-runs'), ['/v1/rl-runs']);
  t.same(await paths('?path=/v1/rl-*'), ['/v1/rl-runs', '/v1/rl-runs/preview', '/v1/rl-recipes']);
  t.same(await paths('?path=/v1/workloads/{id}'), ['/v1/workloads/wl_missing'], 'a template, as fault rules take it');
  t.same(await paths('?path=/v1/{resource}'), ['/v1/rl-runs', '/v1/rl-recipes', '/v1/me']);
  t.same(await paths('?method=post'), ['/v1/rl-runs', '/v1/rl-runs/preview']);
  t.same(await paths('?method=GET&path=/v1/*&limit=1'), ['/v1/workloads/wl_missing']);
  t.same(await paths('?kind=control'), ['/_mock/clock']);
  t.equal((await journal(s, '?limit=1000')).length, 6);
  for (const bad of ['?limit=0', '?limit=1001', '?limit=x', '?path=v1', '?method=G%20T', '?method=FETCH', '?paht=/v1/me', '?kind=mock',
    '?path=/v1/work*s', '?path=/v1/{}', '?path=/workloads/{id}', '?path=/v2/*', '?kind=control&path=/v1/*']) {
    const res = await s.call('GET', `/_mock/requests${bad}`);
    t.equal(res.status, 400, bad);
    t.equal(res.body.error, 'invalid_request');
  }
  t.match((await s.call('GET', '/_mock/requests?path=/workloads/{id}')).body.message, /can match no journaled request/);
  t.equal((await s.call('DELETE', '/_mock/requests')).status, 204);
  t.same(await journal(s), [], 'neither the refused reads nor the clear are journaled');
});

t.test('POST /_mock/requests/match: the matches, or the nearest requests and what differs', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const preview = legCounting({ seed: 7 });
  t.equal((await inject(s, 'POST', '/v1/rl-runs/preview', { body: preview, headers: { 'x-client': 'app/1.0' } })).status, 200);
  t.equal((await inject(s, 'GET', '/v1/workloads?limit=5&status=running')).status, 200);
  t.equal((await inject(s, 'POST', '/_mock/clock/advance', { body: { seconds: 60 } })).status, 200);
  const match = async (body: object) => {
    const res = await inject(s, 'POST', '/_mock/requests/match', { body });
    t.equal(res.status, 200, JSON.stringify(body));
    return res.body;
  };

  const found = await match({ method: 'POST', path: '/v1/rl-runs/{op}', headers: { 'X-Client': 'app/1.0' }, body: { '/recipe_id': preview.recipe_id, '/seed': 7 }, status: 200, replayed: false, kind: 'api' });
  t.match(found, { count: 1, evicted: 0, nearest: [], matches: [{ method: 'POST', path: '/v1/rl-runs/preview', body: preview }] });
  t.match(await match({ kind: 'control' }), { count: 1, matches: [{ path: '/_mock/clock/advance', body: { seconds: 60 } }] });
  t.same((await match({})).matches.map((r: any) => r.path), ['/v1/rl-runs/preview', '/v1/workloads', '/_mock/clock/advance'], 'oldest first');
  t.match(await match({ limit: 1 }), { count: 3, matches: [{ path: '/v1/rl-runs/preview' }] });

  const missed = await match({ method: 'GET', path: '/v1/workloads', query: { limit: '6', cursor: 'abc' } });
  t.match(missed, { count: 0, matches: [] });
  t.equal(missed.nearest[0].request.path, '/v1/workloads');
  t.same(missed.nearest[0].differences, [
    { field: 'query.limit', expected: '6', actual: '5' },
    { field: 'query.cursor', expected: 'abc', actual: null, absent: true },
  ]);
  t.equal(missed.nearest.length, 3);
  const body = await match({ path: '/v1/rl-runs/preview', body: { '/seed': 8, '/config/steps': 3 } });
  t.same(body.nearest[0].differences, [
    { field: 'body./seed', expected: 8, actual: 7 },
    { field: 'body./config/steps', expected: 3, actual: null, absent: true },
  ]);

  for (const [bad, why] of [
    [{ headers: { authorization: 'Bearer x' } }, 'a header the journal never keeps'],
    [{ body: { seed: 7 } }, 'not a JSON pointer'],
    [{ path: '/rl-runs' }, 'a path outside /v1 and /_mock'],
    [{ method: 'FETCH' }, 'not a method'],
    [{ kind: 'mock' }, 'not a kind'],
    [{ status: 99 }, 'not a status'],
    [{ pathh: '/v1/me' }, 'an unknown field'],
  ] as const) {
    const res = await inject(s, 'POST', '/_mock/requests/match', { body: bad });
    t.equal(res.status, 400, why);
    t.equal(res.body.error, 'invalid_request', why);
  }
  t.equal((await journal(s)).length, 3, 'matching is not journaled');
});
