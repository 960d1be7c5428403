import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from '../helpers/tap.js';
import type * as NodeApi from '../../index.js';
import type { MockServerOptions } from '../../index.js';
import type { OptionName } from '../../server/config.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { tempDbPath, type Teardown } from '../helpers/server.js';

// What a user imports: the package name, which resolves to the bundle (package.json exports).
const { MockControlError, startMockServer } = (await import('nodus-mock' as string)) as typeof NodeApi;

const get = async (url: string, key: string) => {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, body: (await res.json()) as any };
};

/** Points os.tmpdir() at a fresh folder for the duration of one test, to see what is left in it. */
function isolatedTmpdir(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-api-test-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  t.teardown(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

t.test('url and a fresh nk_test_ key; the temporary database goes with close()', async (t) => {
  const dir = isolatedTmpdir(t);
  const mock = await startMockServer();
  t.match(mock.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.match(mock.apiKey, /^nk_test_[0-9a-f]{24}$/);
  t.equal(readdirSync(dir).length, 1, 'one temporary folder for the database');
  const me = await get(`${mock.url}/v1/me`, mock.apiKey);
  t.equal(me.status, 200);
  t.match(me.body, { tenant: /^tn_/ });
  await mock.close();
  await mock.close();
  t.same(readdirSync(dir), [], 'close removed it, and a second close is harmless');
  await t.rejects(fetch(`${mock.url}/readyz`), 'no longer listening');
});

t.test('advance() moves this tenant virtual time and resolves with the new now', async (t) => {
  const mock = await startMockServer({ clock: 'manual' });
  t.teardown(() => mock.close());
  const before = await get(`${mock.url}/_mock/clock`, mock.apiKey);
  t.equal(before.body.mode, 'manual', 'the clock option applies');
  const now = await mock.advance(3600);
  t.equal(Date.parse(now) - Date.parse(before.body.now), 3_600_000);
  t.equal((await get(`${mock.url}/_mock/clock`, mock.apiKey)).body.now, now);
  const err = await mock.advance(-1).catch((e: unknown) => e);
  t.type(err, MockControlError, 'an error answer rejects');
  t.match(err, { status: 400, code: 'invalid_request', message: /POST \/_mock\/clock\/advance: 400/ });
});

t.test('fault() stores a rule that applies; requests() is the journal newest first, filtered; reset() clears the tenant', async (t) => {
  const mock = await startMockServer({ clock: 'manual' });
  t.teardown(() => mock.close());
  const rule = await mock.fault({ method: 'GET', path: '/v1/me', action: { type: 'error', status: 503, error: 'unavailable' } });
  t.match(rule, { id: /\S/, method: 'GET', path: '/v1/me', times: 1, after: 0, remaining: 1, applied: 0, source: 'api' }, 'the stored rule, defaults filled in');
  t.match(rule.action, { type: 'error', status: 503, error: 'unavailable' });
  const faulted = await get(`${mock.url}/v1/me`, mock.apiKey);
  t.equal(faulted.status, 503, 'the rule applies');
  t.equal(faulted.body.error, 'unavailable');
  t.equal((await get(`${mock.url}/v1/me`, mock.apiKey)).status, 200, 'once, by default');
  t.equal((await get(`${mock.url}/v1/workloads`, mock.apiKey)).status, 200);

  const all = await mock.requests();
  t.same(all.map((r) => [r.kind, r.method, r.path, r.status]), [
    ['api', 'GET', '/v1/workloads', 200], ['api', 'GET', '/v1/me', 200], ['api', 'GET', '/v1/me', 503], ['control', 'POST', '/_mock/faults', 201],
  ], 'newest first, the fault() call too');
  t.equal(all[2].fault_id, rule.id, 'the faulted request names its rule');
  t.same((await mock.requests({ limit: 1 })).map((r) => r.path), ['/v1/workloads'], 'limit keeps the newest');
  t.same((await mock.requests({ path: '/v1/me' })).map((r) => r.status), [200, 503], 'path filters');
  t.same((await mock.requests({ method: 'POST', kind: 'api' })), [], 'method and kind filter');

  await mock.fault({ path: '/v1/me', times: 5, action: { type: 'error', status: 500, error: 'internal' } });
  await mock.advance(60);
  await mock.reset();
  t.equal((await get(`${mock.url}/v1/me`, mock.apiKey)).status, 200, 'reset removed the rule');
  t.same((await get(`${mock.url}/_mock/faults`, mock.apiKey)).body.faults, []);
  t.same((await mock.requests()).map((r) => r.path), ['/_mock/faults', '/v1/me', '/_mock/reset'], 'and the journal: only what came after it, the reset call first');

  const err = await mock.fault({ path: '/v1/me', action: { type: 'error', status: 200, error: 'fine' } }).catch((e: unknown) => e);
  t.type(err, MockControlError, 'a refused rule rejects');
  t.match(err, { status: 400, code: 'invalid_request', message: /POST \/_mock\/faults: 400/ });
  const badFilter = await mock.requests({ limit: 0 }).catch((e: unknown) => e);
  t.type(badFilter, MockControlError);
  t.match(badFilter, { status: 400, code: 'invalid_request' });
});

t.test('two servers are isolated: own port, own key, own database', async (t) => {
  const [a, b] = await Promise.all([startMockServer({ clock: 'manual' }), startMockServer({ clock: 'manual' })]);
  t.teardown(() => Promise.all([a.close(), b.close()]));
  t.not(a.url, b.url);
  t.not(a.apiKey, b.apiKey);
  const bBefore = (await get(`${b.url}/_mock/clock`, b.apiKey)).body.now;
  await a.advance(86_400);
  t.equal((await get(`${b.url}/_mock/clock`, b.apiKey)).body.now, bBefore, "a's clock does not move b's");
  const aNow = (await get(`${a.url}/_mock/clock`, a.apiKey)).body.now;
  t.not((await get(`${b.url}/_mock/clock`, a.apiKey)).body.now, aNow, "a's key on b is a tenant with b's state");
});

t.test('a given database is kept and reopened; strict keys make apiKey the first key', async (t) => {
  const db = tempDbPath(t);
  const keys = [{ key: 'suite-key', tenant: 'suite' }, { key: 'other-key' }];
  const first = await startMockServer({ db, keys, clock: 'manual' });
  t.equal(first.apiKey, 'suite-key');
  t.equal((await get(`${first.url}/v1/me`, 'nk_test_anything')).status, 401, 'strict mode');
  const now = await first.advance(60);
  await first.close();
  t.ok(existsSync(db), 'a given database is not removed');
  const second = await startMockServer({ db, keys, clock: 'manual' });
  t.teardown(() => second.close());
  t.equal((await get(`${second.url}/_mock/clock`, second.apiKey)).body.now, now, 'state survived');
});

t.test('restore: FILE sends the file as it streams into apiKey\'s tenant, a fork of the snapshot\'s', async (t) => {
  const source = await startMockServer({ clock: 'manual' });
  t.teardown(() => source.close());
  await source.fault({ path: '/v1/never', action: { type: 'reset' } });
  await source.advance(600);
  const file = join(mkdtempSync(join(tmpdir(), 'nodus-mock-api-test-')), 'snapshot.json');
  t.teardown(() => rmSync(dirname(file), { recursive: true, force: true }));
  writeFileSync(file, JSON.stringify(await source.snapshot()));

  const restored = await startMockServer({ restore: file });
  t.teardown(() => restored.close());
  const clock = await get(`${restored.url}/_mock/clock`, restored.apiKey);
  t.equal(clock.body.now, (await get(`${source.url}/_mock/clock`, source.apiKey)).body.now, 'the snapshot\'s clock');
  const faults = (await get(`${restored.url}/_mock/faults`, restored.apiKey)).body.faults;
  t.match(faults, [{ path: '/v1/never' }], 'and its fault rule');
  t.not(faults[0].id, (await get(`${source.url}/_mock/faults`, source.apiKey)).body.faults[0].id, 'under an id of the new tenant');
  const missing = await startMockServer({ restore: join(dirname(file), 'missing.json') }).catch((e: unknown) => e);
  t.match(missing, { code: 'ENOENT' }, 'a missing file rejects the start');
});

t.test('invalid options reject like the CLI and leave nothing behind', async (t) => {
  const dir = isolatedTmpdir(t);
  await t.rejects(startMockServer({ timeScale: 0 }), { name: 'ConfigError', message: /--time-scale/ });
  await t.rejects(startMockServer({ clok: 'manual' } as MockServerOptions), { name: 'TypeError', message: /clok/ });
  t.same(readdirSync(dir), []);
});

t.test('the options offer every server setting', async (t) => {
  // Compile-time check: adding an option to server/config.ts without offering it here fails the build.
  const missing: [Exclude<OptionName, keyof MockServerOptions>] extends [never] ? true : false = true;
  t.ok(missing);
});

t.test('the package name resolves to the bundled entry point (package.json exports)', async (t) => {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
  t.equal(import.meta.resolve('nodus-mock'), pathToFileURL(join(packageRoot(), pkg.exports['.'].default)).href);
});
