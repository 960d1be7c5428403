#!/usr/bin/env node
// Runs the compiled tap suite and ends its output with one plain line, `N passed, N failed`
// (`, N skipped` when any), which CI reads; tap's own last line is an object literal it cannot.
// Just before that line it repeats each failure (the test file, the failed assertion and the start
// of its diagnostics): CI keeps only part of a long log, and a failure scrolled out of it is lost.
// The exit code is tap's. The whole suite measures coverage (package.json's "tap" section sets the
// floor, and tap fails the run under it); a chosen subset of files does not, since its figures
// would fall short of a floor set for the whole suite. NODUS_MOCK_TEST_COVERAGE=off runs the whole
// suite without it: CI's second pass, on another Node, checks the suite passes there, and the
// coverage of the same code was measured by the first (it costs about a sixth of a pass).
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const tapBin = fileURLToPath(new URL('../node_modules/tap/dist/esm/run.mjs', import.meta.url));
// tap rebuilds its plugin set when a run finds another one built than package.json configures (a
// fresh npm ci has tap's default set, with the TypeScript loader package.json leaves out), but that
// run's test processes still load the loaders it started with: every CI pass paid for the loader.
// Building first makes the first run the configured one.
const built = readFileSync(new URL('../node_modules/@tapjs/test/test-built/dist/esm/index.js', import.meta.url), 'utf8');
const { tap = {} } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const leftOut = (tap.plugin ?? []).filter((name) => name.startsWith('!')).map((name) => name.slice(1));
if (leftOut.some((name) => built.includes(`from "${name}"`))) spawnSync(process.execPath, [tapBin, 'build'], { stdio: 'inherit' });
const chosen = process.argv.slice(2);
// The whole suite is tap's include list with each group folder's files replaced by its runner
// (test/helpers/groups.ts); tap run on its own runs every file in a process of its own.
const files = chosen.length ? chosen : (await import('../dist/test/helpers/groups.js')).suiteFiles('dist/test');
const coverage = chosen.length || process.env.NODUS_MOCK_TEST_COVERAGE === 'off' ? ['--disable-coverage'] : [];
// tap leaves one CPU free by default, which on a two-core machine runs the files one at a time;
// most of a file's time is spent waiting (on its sockets, the servers, Python, Chromium, the disk),
// so one file per CPU, at least two, runs them side by side. TAP_JOBS still chooses.
const jobs = process.env.TAP_JOBS ? [] : [`--jobs=${Math.max(2, availableParallelism())}`];
const child = spawn(process.execPath, [tapBin, '--reporter=tap', ...jobs, ...coverage, ...files], {
  stdio: ['inherit', 'pipe', 'inherit'],
  env: { ...process.env, FORCE_COLOR: '0' },
});

const DIAGNOSTIC_LINES = 25;
let summary;
let tail = '';
let file = '';
const failures = [];
let diagnostic = null;
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  const text = tail + chunk.toString('utf8');
  const lines = text.split('\n');
  tail = lines.pop();
  for (const line of lines) {
    const m = /^# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?(?:, skip: (\d+))?/.exec(line);
    if (m) summary = { pass: +m[2], fail: +(m[3] ?? 0), skip: +(m[4] ?? 0) };
    // A top-level subtest is a file tap runs; a group's runner runs each of its files in a subtest
    // named by the file's path.
    const subtest = /^( {4})?# Subtest: (.*)$/.exec(line);
    if (subtest && (!subtest[1] || /\.test\.m?js$/.test(subtest[2]))) file = subtest[2];
    if (diagnostic) {
      if (diagnostic.lines.length < DIAGNOSTIC_LINES) diagnostic.lines.push(line.slice(diagnostic.indent));
      if (/^\s*\.\.\.$/.test(line)) diagnostic = null;
      continue;
    }
    const failed = /^(\s*)not ok /.exec(line);
    if (!failed) continue;
    // A failed assertion fails each test around it too; those lines add nothing to the first.
    const last = failures.at(-1);
    if (last?.file === file && last.indent > failed[1].length) continue;
    diagnostic = { file, indent: failed[1].length, lines: [`${file}:`, line.slice(failed[1].length)] };
    failures.push(diagnostic);
  }
});
child.on('close', (code, signal) => {
  const exit = code ?? (signal ? 1 : 0);
  if (!summary) summary = { pass: 0, fail: exit === 0 ? 0 : 1, skip: 0 };
  if (exit !== 0 && summary.fail === 0) summary.fail = 1;
  if (failures.length) process.stdout.write(`\nfailures:\n${failures.map((f) => f.lines.join('\n')).join('\n')}\n`);
  const skipped = summary.skip ? `, ${summary.skip} skipped` : '';
  process.stdout.write(`\n${summary.pass} passed, ${summary.fail} failed${skipped}\n`);
  process.exit(exit);
});
