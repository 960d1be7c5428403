import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
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
