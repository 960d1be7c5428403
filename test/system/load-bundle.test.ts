import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from '../helpers/tap.js';
import { BUNDLE, CODE_CACHE, compileBundle } from '../../server/boot/load-bundle.js';
import { startInProcess, type Teardown } from '../helpers/server.js';

/**
 * A copy of the shipped bundle with a cache of our choosing, in a folder of dist/test: inside the
 * package root, so its requires resolve as the original's, and outside what npm packs
 * (test/system/package.test.ts lists that while these tests run).
 */
function copyWithCache(t: Teardown, cache: 'shipped' | 'garbage' | 'stale') {
  const dir = mkdtempSync(join(dirname(BUNDLE), '..', 'test', 'bundle-copy-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const paths = { bundle: join(dir, 'server.cjs'), cache: join(dir, 'server.cjs.cache') };
  copyFileSync(BUNDLE, paths.bundle);
  if (cache === 'garbage') writeFileSync(paths.cache, randomBytes(4096));
  else copyFileSync(CODE_CACHE, paths.cache);
  const now = Date.now() / 1000;
  // The loader takes a cache only when it is not older than the bundle.
  utimesSync(paths.bundle, now, cache === 'stale' ? now + 60 : now - 60);
  return paths;
}

t.test("the build's code cache is accepted by this Node", async (t) => {
  const { script, exports } = compileBundle(copyWithCache(t, 'shipped'));
  t.equal(script.cachedDataRejected, false, 'V8 took the cache: starts skip compiling the bundle');
  t.type(exports.startMockServer, 'function');
});

t.test('a cache V8 refuses: the bundle compiles as usual and serves', async (t) => {
  const { script, exports } = compileBundle(copyWithCache(t, 'garbage'));
  t.equal(script.cachedDataRejected, true);
  const server = await exports.startMockServer({ db: ':memory:' });
  t.teardown(() => server.close());
  t.equal((await fetch(`${server.url}/readyz`)).status, 200);
});

t.test('a cache older than the bundle is not offered to V8', async (t) => {
  const { script } = compileBundle(copyWithCache(t, 'stale'));
  t.equal(script.cachedDataRejected, undefined, 'no cachedData given');
});

t.test('a start and its first answer load no TLS or HTTP/2 module', async (t) => {
  // In a process of its own: this one has them already (tap, fetch). node:http asks, not fetch,
  // whose undici loads both.
  const probe = `
    const { startMockServer } = require(${JSON.stringify(BUNDLE)});
    startMockServer({ db: ':memory:' }).then((server) => {
      require('node:http').get(server.url + '/readyz', (res) => {
        res.resume();
        res.on('end', async () => {
          await server.close();
          console.log(JSON.stringify({ status: res.statusCode, modules: process.moduleLoadList }));
        });
      });
    });`;
  const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  const { status, modules } = JSON.parse(r.stdout) as { status: number; modules: string[] };
  t.equal(status, 200);
  t.same(modules.filter((m) => /\b(https|http2|tls)\b/.test(m)), [], 'node:https and node:http2 stay unloaded');
});

t.test('the bundle answers a refused body in zod\'s English, as in process, and requires none of the compilers it leaves out', async (t) => {
  const refused = { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'sideways', evaluation_tasks: 'many' };
  // In a process of its own, with the bundle's own require: what it loads is in require.cache.
  const probe = `
    const { startMockServer } = require(${JSON.stringify(BUNDLE)});
    startMockServer({ db: ':memory:' }).then(async (server) => {
      const post = (path, body) => fetch(server.url + path, { method: 'POST', headers: { authorization: 'Bearer nk_test_bundle_probe', 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const refused = await post('/v1/rl-runs/preview', ${JSON.stringify(refused)});
      const preview = await post('/v1/rl-runs/preview', { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'evaluate' });
      await server.close();
      console.log(JSON.stringify({ refused: { status: refused.status, body: await refused.json() }, preview: preview.status, loaded: Object.keys(require.cache) }));
    });`;
  const r = spawnSync(process.execPath, ['-e', probe], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  const probed = JSON.parse(r.stdout) as { refused: { status: number; body: unknown }; preview: number; loaded: string[] };
  const s = await startInProcess(t);
  const inProcess = await s.call('POST', '/v1/rl-runs/preview', { body: refused });
  t.equal(probed.refused.status, 400);
  t.same(probed.refused.body, inProcess.body, 'the same envelope and message');
  t.equal(probed.preview, 200);
  t.same(probed.loaded.filter((file) => /ajv-compiler|fast-json-stringify-compiler/.test(file)), [], 'neither compiler is required');
});
