import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { headerProblems } from '../helpers/documented-headers.js';
import { startServer, type Teardown } from '../helpers/server.js';

/**
 * The served document as a Node user consumes it: types generated with openapi-typescript, a
 * client from openapi-fetch, the guide's flow (client/guide.ts) compiled with `tsc --strict` and
 * run against a server. The types are generated here, from what the server serves, rather than
 * committed or made by the build: the build compiles what `npm run openapi` needs to regenerate the
 * document, so types made from a stale one would stop the very command that refreshes it.
 */

type Json = Record<string, any>;

const root = packageRoot();
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');

/** Generates the types of `document` beside a copy of the guide and compiles both; the compiler's output, or '' when clean. */
async function compileGuide(t: Teardown, document: Json): Promise<{ dir: string; errors: string }> {
  // Under dist/test: the compiled client resolves openapi-fetch from this package, and coverage leaves it out.
  const dir = mkdtempSync(join(root, 'dist', 'test', 'contract', 'client-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'nodus-api.ts'), astToString(await openapiTS(document as never, { defaultNonNullable: false })));
  copyFileSync(join(root, 'test', 'contract', 'client', 'guide.ts'), join(dir, 'guide.ts'));
  const args = ['--strict', '--noEmitOnError', '--pretty', 'false', '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext',
    '--lib', 'ES2023', '--types', 'node', '--skipLibCheck', '--outDir', dir, join(dir, 'guide.ts')];
  const run = spawnSync(process.execPath, [tsc, ...args], { cwd: root, encoding: 'utf8' });
  return { dir, errors: run.status === 0 ? '' : `${run.stdout}${run.stderr}`.trim() };
}

t.test('a client generated from the served document compiles under tsc --strict and runs the guide\'s flow', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  const served = (await s.call('GET', '/openapi.json', { key: null })).body;
  const { dir, errors } = await compileGuide(t, served);
  t.equal(errors, '', 'tsc --strict finds nothing');
  if (errors) return;

  const { runGuide } = await import(pathToFileURL(join(dir, 'guide.js')).href);
  const problems: string[] = [];
  const watch = {
    onResponse({ request, response, schemaPath }: { request: Request; response: Response; schemaPath: string }) {
      problems.push(...headerProblems(served, request.method, schemaPath, response));
    },
  };
  const run = await runGuide(s.url, s.key, watch);

  t.equal(run.recipe, 'reasoning-gym-leg-counting@1.0.0');
  t.same(run.launch, { status: 202, id: run.launch.id, replayed: null }, 'a fresh launch is not marked replayed');
  t.same(run.replay, { status: 202, id: run.launch.id, replayed: 'true' }, 'the retry under the same key replays the run');
  t.same(run.conflict, { status: 409, error: 'idempotency_conflict' }, 'another body under the same key is refused');
  t.equal(run.status, 'completed');
  t.ok(run.evidence.pages >= 2, `the evidence came in ${run.evidence.pages} pages of at most 20`);
  t.equal(run.evidence.lastHasMore, false, 'read to the end');
  t.equal(run.evidence.events, run.summary.evaluationAttempts * 2, 'a start and an end event for every attempt the summary counts');
  t.equal(run.summary.workloadId, run.launch.id);
  t.equal(run.upload.status, 201);
  t.equal(run.upload.sha256, run.upload.sent, 'the asset has the digest X-Nodus-SHA256 claimed');
  t.equal(run.upload.retryReplayed, 'true', 'a keyed upload retried answers the same asset, marked');
  t.equal(run.upload.storedHeader, run.upload.sent, 'the control API gives back the bytes under their digest');
  t.match(run.upload.stored, 'trained by a generated client');
  t.ok(run.download.bytes > 0, `${run.download.name}: ${run.download.bytes} bytes`);
  t.equal(run.download.header, run.download.computed, 'X-Nodus-SHA256 is the digest of the downloaded bytes');
  t.equal(run.download.listed, run.download.computed, 'and the one the outputs list gave');
  t.same(problems, [], 'every answer carried only headers its operation declares, with values their schemas accept');
});

t.test('the compile is a real check: without the Idempotency-Key parameter the guide does not compile', async (t) => {
  const s = await startServer(t);
  const served = (await s.call('GET', '/openapi.json', { key: null })).body;
  const launch = served.paths['/v1/rl-runs'].post;
  launch.parameters = launch.parameters.filter((p: Json) => p.name !== 'Idempotency-Key');
  const { errors } = await compileGuide(t, served);
  t.match(errors, /guide\.ts\(\d+,\d+\): error TS\d+/, 'tsc refuses the launch calls');
});
