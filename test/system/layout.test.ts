import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import t from 'tap';
import { packageRoot } from '../../server/boot/package-info.js';

/** Every TypeScript source of the shipped code, as paths from the package root. */
function sources(dir: string): string[] {
  return readdirSync(join(packageRoot(), dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const SHIPPED = [...sources('server'), ...sources('routes'), ...sources('store'), ...sources('openapi'), 'index.ts'];
const text = (path: string) => readFileSync(join(packageRoot(), path), 'utf8');
const under = (path: string, ...folders: string[]) => folders.some((f) => path.startsWith(`${f}/`));

t.test('only routes/, server/http/ and the composition import Fastify', async (t) => {
  const composition = new Set(['server/app.ts']);
  for (const path of SHIPPED) {
    if (under(path, 'routes', 'server/http') || composition.has(path)) continue;
    t.notMatch(text(path), /from '(fastify|@fastify\/[^']+|fastify-[^']+)'/, `${path} imports no Fastify`);
  }
});

t.test('SQL is spoken in store/ only', async (t) => {
  for (const path of SHIPPED) {
    if (under(path, 'store')) continue;
    t.notMatch(text(path), /\.(prepare|pragma)\(|\bdb\.exec\(|from 'better-sqlite3'/, `${path} runs no SQL`);
  }
});

t.test('no hook decides by the URL which surface a request is on', async (t) => {
  // Views may write links to /v1 paths; the hooks and plugins must not ask where a request goes.
  for (const path of SHIPPED.filter((p) => under(p, 'server/http') && !under(p, 'server/http/views'))) {
    // Whether a target is a path at all (origin-form, `/`) is not a surface: a prefix with a segment is.
    t.notMatch(text(path), /url\.startsWith\(['"`]\/\w|['"`]\/(v1|_mock)\b/, `${path} tests no URL prefix`);
  }
});

t.test('the domain imports nothing of the HTTP layer or the routes', async (t) => {
  for (const path of SHIPPED.filter((p) => under(p, 'server/domain', 'server/simulator', 'store', 'openapi'))) {
    for (const [, spec] of text(path).matchAll(/from '(\.[^']+)'/g)) {
      const target = relative(packageRoot(), join(packageRoot(), path, '..', spec));
      t.notOk(under(target, 'server/http', 'routes'), `${path} → ${target}`);
    }
  }
});

/** The code without its comments: a comment may describe what the HTTP layer does with a value. */
const code = (path: string) => text(path).replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/[^\n]*/g, '$1');
const DOMAIN = SHIPPED.filter((p) => under(p, 'server/domain', 'server/simulator'));

t.test('the domain speaks no HTTP: no status numbers, header names or routes as values', async (t) => {
  for (const path of DOMAIN) {
    const body = code(path);
    t.notMatch(body, /\b(status|statusCode|code)\s*:\s*[1-5]\d\d\b|\b[1-5]\d\d as const\b/, `${path} returns no status number`);
    t.notMatch(body, /new \w*Error\(\s*[1-5]\d\d\b/, `${path} throws no status number`);
    t.notMatch(body, /'(GET|POST|PUT|PATCH|DELETE) \/[^']*'/, `${path} names no route as a value`);
    // The delivery worker is the mock's one HTTP client: the headers it sends are the webhook protocol's.
    if (path !== 'server/domain/webhooks/delivery.ts') {
      t.notMatch(body, /'(idempotent-replayed|idempotency-key|content-type|retry-after|etag|cache-control|x-nodus-[a-z0-9-]+|x-request-id)'/i, `${path} names no header`);
    }
  }
});

t.test('the unit of work is the only way into a transaction from the domain', async (t) => {
  // The store's, not any `.write(` (a tokenizer's or a file's).
  const opens = /\bstore\.(write|writeTogether)\(/;
  t.match(code('server/domain/unit-of-work.ts'), opens, 'the unit of work opens them so');
  for (const path of DOMAIN.filter((p) => p !== 'server/domain/unit-of-work.ts')) t.notMatch(code(path), opens, `${path} opens no transaction of its own`);
});

t.test('docs the code points to exist: pages of docs/, never the design notes outside the repository', async (t) => {
  for (const path of SHIPPED) {
    const body = text(path);
    t.notMatch(body.replace(/docs\/control-api\.md/g, ''), /control-api\.md/, `${path} names no document outside the repository`);
    for (const [page] of body.matchAll(/\bdocs\/[\w-]+\.md\b/g)) t.ok(existsSync(join(packageRoot(), page)), `${path} → ${page}`);
  }
});

t.test('the quick start describes the line npm test ends with, skipped tests included', async (t) => {
  // The runner itself, on a file with one passing and one skipped test, in a project folder of its
  // own: tap keeps its state (coverage too) under the project it runs in, and this run's must not
  // touch the suite's.
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-runner-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(packageRoot(), 'scripts', 'test.mjs'), join(dir, 'scripts', 'test.mjs'));
  symlinkSync(join(packageRoot(), 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n');
  writeFileSync(join(dir, 'fixture.test.mjs'), "import t from 'tap';\nt.pass('runs');\nt.test('skipped', { skip: 'on purpose' }, async () => {});\n");
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TAP')));
  const run = spawnSync(process.execPath, ['scripts/test.mjs', 'fixture.test.mjs'], { cwd: dir, env, encoding: 'utf8' });
  const last = run.stdout.trimEnd().split('\n').pop();
  t.equal(last, '1 passed, 0 failed, 1 skipped', 'what scripts/test.mjs prints last');
  // The README's wording, with N for each number, is that line.
  const quickStart = /npm test +# (.*)/.exec(text('README.md'))![1];
  const [ends, skipped] = [/"(N passed, N failed)"/.exec(quickStart)?.[1], /"(, N skipped)"/.exec(quickStart)?.[1]];
  t.equal(`${ends}${skipped}`.replace(/N/g, '1').replace('1 failed', '0 failed'), last);

  // A failure is repeated, with its file and diagnostics, just above that line: CI keeps only part
  // of a long log.
  writeFileSync(join(dir, 'failing.test.mjs'), "import t from 'tap';\nt.pass('runs');\nt.equal(1, 2, 'one is two');\n");
  const failing = spawnSync(process.execPath, ['scripts/test.mjs', 'failing.test.mjs'], { cwd: dir, env, encoding: 'utf8' });
  t.equal(failing.status, 1, 'tap\'s exit code');
  const end = failing.stdout.slice(failing.stdout.lastIndexOf('\nfailures:\n')).trimEnd().split('\n');
  t.same(end.slice(1, 4), ['failures:', 'failing.test.mjs:', 'not ok 2 - one is two'], 'the file, then the assertion');
  t.ok(end.some((line) => /^\s*-2$/.test(line)) && end.some((line) => /^\s*\+1$/.test(line)), 'its diagnostics: the diff');
  t.equal(end.at(-1), '1 passed, 1 failed');
});
