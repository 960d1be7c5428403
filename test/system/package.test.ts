// What a user gets from `npm install nodus-mock`: the packed file list, the CLI entry and the
// typings of `import { startMockServer } from 'nodus-mock'`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { tempDbPath } from '../helpers/server.js';

const root = packageRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The files `npm pack` would publish; scripts are skipped, or `prepare` would rebuild dist/ under the running tests. */
function packedFiles(): string[] {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm pack failed: ${r.stderr}`);
  return (JSON.parse(r.stdout)[0].files as { path: string }[]).map((f) => f.path);
}

/** A folder whose node_modules/nodus-mock is this package, as an installed dependency would be. */
function consumerDir(t: { teardown(fn: () => unknown): void }): string {
  const dir = dirname(tempDbPath(t));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(root, join(dir, 'node_modules', 'nodus-mock'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  return dir;
}

/** Runs node asynchronously, so the other tests in this file are not held up. */
function runNode(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

t.test('the package holds the CLI, the Node API with its typings, and the data it declares', async (t) => {
  const files = packedFiles();
  const packed = new Set(files);
  for (const needed of ['package.json', 'README.md', pkg.bin['nodus-mock'], pkg.exports['.'].default, pkg.exports['.'].types, 'openapi/openapi.json']) {
    t.ok(packed.has(needed.replace(/^\.\//, '')), needed);
  }
  // catalog/ and scenarios/ are declared before they have content: assert each pattern that has
  // some on disk (npm packs no empty folder, and compose creates an empty scenarios/ to mount).
  for (const pattern of pkg.files as string[]) {
    const path = join(root, pattern);
    if (pattern.includes('*') || !existsSync(path) || (statSync(path).isDirectory() && readdirSync(path).length === 0)) continue;
    t.ok(files.some((f) => f === pattern || f.startsWith(`${pattern}/`)), `${pattern} is packed`);
  }
  // The README's links to docs/ work in an installed copy too.
  for (const [, page] of readFileSync(join(root, 'README.md'), 'utf8').matchAll(/\]\((docs\/[\w-]+\.md)\)/g)) {
    if (existsSync(join(root, page))) t.ok(packed.has(page), `${page} is packed`);
  }
  t.same(files.filter((f) => /^dist\/(test|scripts|bench)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts'))), [], 'no tests, scripts or sources');

  // Every relative import of packed code is packed too: the server runs from an install.
  for (const file of files.filter((f) => /\.c?js$/.test(f))) {
    // Lines of comments are left out: the bundle keeps its dependencies' JSDoc, `{import('../../x').T}`.
    const source = readFileSync(join(root, file), 'utf8').split('\n').filter((l) => !/^\s*(\*|\/\/|\/\*)/.test(l)).join('\n');
    for (const [, spec] of source.matchAll(/(?:from\s+|import\s*\(\s*|require\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      t.ok(packed.has(posix.join(posix.dirname(file), spec)), `${file} imports ${spec}`);
    }
  }
});

t.test('the CLI entry keeps its shebang, so npm links it as an executable', async (t) => {
  t.equal(readFileSync(join(root, pkg.bin['nodus-mock']), 'utf8').split('\n')[0], '#!/usr/bin/env node');
});

t.test('a strict TypeScript consumer compiles against dist/index.d.ts', async (t) => {
  const types = readFileSync(join(root, 'dist', 'index.d.ts'), 'utf8');
  t.notMatch(types, /^\s*import\b/m, 'self-contained: no zod, Fastify or better-sqlite3 types reach the consumer');
  t.match(types, /export declare function startMockServer/);

  const dir = consumerDir(t);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, skipLibCheck: false, target: 'ES2022',
        module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023'], types: [],
      },
      files: ['consumer.ts'],
    }),
  );
  writeFileSync(
    join(dir, 'consumer.ts'),
    [
      "import { MockControlError, startMockServer, type FaultRule, type MockServer } from 'nodus-mock';",
      "const mock: MockServer = await startMockServer({ clock: 'manual', timeScale: 10, keys: [{ key: 'k', tenant: 't' }] });",
      'const now: string = await mock.advance(60);',
      "const rule: FaultRule = { method: 'POST', path: '/v1/rl-runs', action: { type: 'drop_response' } };",
      'const id: string = (await mock.fault(rule)).id;',
      "const status: number | null | undefined = (await mock.requests({ path: '/v1/rl-runs', limit: 5 }))[0]?.status;",
      'await mock.reset();',
      'await mock.close();',
      "// @ts-expect-error seconds are a number",
      "await mock.advance('60');",
      "// @ts-expect-error an unknown option",
      "await startMockServer({ clok: 'manual' });",
      'const code: string | undefined = new MockControlError(400, "invalid_request", "m").code;',
      'export { now, id, status, code };',
    ].join('\n'),
  );
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = await runNode([tsc, '-p', dir], dir);
  t.equal(result.code, 0, result.out);
});

t.test('the README example for Node tests runs as written', async (t) => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split('\n## Use from Node tests\n')[1]?.split('\n## ')[0] ?? '';
  const example = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  t.ok(example, 'the section has a js example');
  if (!example) return;
  t.match(example, "from 'nodus-mock'", 'imported by the package name, as a user would');
  const dir = consumerDir(t);
  writeFileSync(join(dir, 'example.test.mjs'), example);
  // The example's temporary database lands in `dir`, to see that close() removed it.
  // The reporter is named: node:test's default is TAP when piped on Node 20 and the spec reporter on 23+.
  const result = await runNode(['--test', '--test-reporter=tap', 'example.test.mjs'], dir, { ...process.env, TMPDIR: dir });
  t.equal(result.code, 0, result.out);
  t.match(result.out, /^# pass [1-9]/m);
  t.same(readdirSync(dir).sort(), ['example.test.mjs', 'node_modules', 'package.json'], 'the example cleaned up after itself');
});
