import { readFileSync, existsSync } from 'node:fs';
import t from 'tap';
import { legCounting, previewAndLaunch } from '../../helpers/rl.js';
import { freshKey, startServer } from '../../helpers/server.js';

const journal = async (s: Awaited<ReturnType<typeof startServer>>, query = '', key?: string) => {
  const res = await s.call('GET', `/_mock/requests${query}`, { key });
  if (res.status !== 200) throw new Error(`journal: ${res.status} ${res.text}`);
  return res.body.requests as any[];
};

t.test('a launch and its replay as the journal shows them', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  const now = (await s.call('POST', '/_mock/clock/advance', { body: { seconds: 3600 } })).body.now;
  const { preview, launch } = await previewAndLaunch(s, legCounting({ seed: 3 }), 'journal-key');
  const replay = await s.call('POST', '/v1/rl-runs', {
    body: { ...preview.body.configuration, review_token: preview.body.review_token },
    headers: { 'idempotency-key': 'journal-key' },
  });
  const rows = await journal(s);
  t.equal(rows.length, 3, 'the /_mock calls are not journaled');
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
});

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
  const [reset, errored, unknown, text, badJson, query] = await journal(s);
  t.same(query.query, { tag: ['a', 'b'], q: 'x y' });
  t.equal(query.path, '/v1/rl-recipes');
  t.match(badJson, { status: 400, body: '{"mode": ' }, 'invalid JSON is kept as text');
  t.match(text, { status: 405, body: 'hello there' });
  t.match(unknown, { status: 404, path: '/v1/nowhere', body: null, body_bytes: 0 });
  t.match(errored, { status: 503, fault: 'error', fault_id: /^flt_/ });
  t.match(reset, { status: null, fault: 'reset' });
  t.equal((await journal(s, '', freshKey())).length, 0, 'another tenant sees its own journal only');
  await s.call('GET', '/v1/me', { key: null });
  await s.call('GET', '/healthz', { key: null });
  t.equal((await journal(s)).length, 6, 'unauthenticated and health requests are not journaled');
});

t.test('bodies are cut at 16 KiB on a character boundary, with a marker', async (t) => {
  const s = await startServer(t);
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

t.test('Authorization is never stored: not in the rows, not in the file', async (t) => {
  const s = await startServer(t);
  await previewAndLaunch(s, legCounting(), 'secret-check');
  await s.call('GET', '/v1/me', { headers: { 'x-extra': 'header-value-xyz' } });
  // Rows wait in memory for their commit; a reader of the journal writes them first.
  t.equal((await journal(s)).length, 3);
  const rows = s.store.db.prepare('SELECT * FROM request_journal').all();
  t.equal(rows.length, 3);
  const dump = JSON.stringify(rows);
  t.notMatch(dump, s.key);
  t.notMatch(dump, /authorization|bearer/i);
  t.notMatch(dump, 'header-value-xyz', 'no other header either');
  t.match(dump, 'secret-check', 'but the idempotency key is');
  s.store.db.pragma('wal_checkpoint(TRUNCATE)');
  for (const file of [s.dbPath, `${s.dbPath}-wal`]) {
    if (existsSync(file)) t.notOk(readFileSync(file).includes(s.key), `${file} does not hold the key`);
  }
});

t.test('a bounded ring per tenant: the oldest rows are evicted as new ones come', async (t) => {
  const s = await startServer(t, { journalSize: 5 });
  const other = freshKey();
  await s.call('GET', '/v1/me', { key: other });
  for (let i = 0; i < 8; i++) await s.call('GET', `/v1/me?i=${i}`);
  const rows = await journal(s);
  t.same(rows.map((r) => r.query.i), ['7', '6', '5', '4', '3']);
  const stored = s.store.db.prepare('SELECT count(*) AS n FROM request_journal').get() as { n: number };
  t.equal(stored.n, 6, 'five rows for this tenant on disk, plus the other tenant\'s one');
  t.equal((await journal(s, '', other)).length, 1, 'eviction is per tenant');
});

t.test('filters: path exact or prefix, method, limit; bad filters are 400', async (t) => {
  const s = await startServer(t);
  await s.call('GET', '/v1/me');
  await s.call('GET', '/v1/rl-recipes');
  await s.call('POST', '/v1/rl-runs/preview', { body: legCounting() });
  await s.call('POST', '/v1/rl-runs', { body: {} });
  t.same((await journal(s, '?path=/v1/rl-runs')).map((r) => r.path), ['/v1/rl-runs']);
  t.same((await journal(s, '?path=/v1/rl-*')).map((r) => r.path), ['/v1/rl-runs', '/v1/rl-runs/preview', '/v1/rl-recipes']);
  t.same((await journal(s, '?method=post')).map((r) => r.path), ['/v1/rl-runs', '/v1/rl-runs/preview']);
  t.same((await journal(s, '?method=GET&path=/v1/*&limit=1')).map((r) => r.path), ['/v1/rl-recipes']);
  t.equal((await journal(s, '?limit=1000')).length, 4);
  for (const bad of ['?limit=0', '?limit=1001', '?limit=x', '?path=v1', '?method=G%20T', '?paht=/v1/me']) {
    const res = await s.call('GET', `/_mock/requests${bad}`);
    t.equal(res.status, 400, bad);
    t.equal(res.body.error, 'invalid_request');
  }
  t.equal((await s.call('DELETE', '/_mock/requests')).status, 204);
  t.same(await journal(s), []);
});

t.test('journal rows riding a group commit that fails are queued again, not lost', async (t) => {
  const s = await startServer(t);
  await s.call('GET', '/v1/me');
  const rowsNow = s.store.db.prepare('SELECT count(*) FROM request_journal').pluck();
  let ridden: unknown;
  let failOnce = true;
  // Registered after the journal's rider, so it runs after the journal wrote its rows, in the same transaction.
  s.store.onGroupCommit(() => {
    if (!failOnce) return;
    failOnce = false;
    ridden = rowsNow.get();
    throw new Error('the group commit fails');
  });
  await s.store.writeTogether(() => undefined);
  t.equal(ridden, 1, 'the waiting row rode along the failed group commit');
  t.equal(rowsNow.get(), 0, 'and was rolled back with it');
  t.match(await journal(s), [{ method: 'GET', path: '/v1/me', status: 200 }], 'it is written all the same');
});
