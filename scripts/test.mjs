#!/usr/bin/env node
// Runs the compiled tap suite and ends its output with one plain line, `N passed, N failed`
// (`, N skipped` when any), which CI reads; tap's own last line is an object literal it cannot.
// The exit code is tap's. The whole suite measures coverage (package.json's "tap" section sets the
// floor, and tap fails the run under it); a chosen subset of files does not, since its figures
// would fall short of a floor set for the whole suite.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const tapBin = fileURLToPath(new URL('../node_modules/tap/dist/esm/run.mjs', import.meta.url));
const files = process.argv.slice(2);
const coverage = files.length ? ['--disable-coverage'] : [];
const child = spawn(process.execPath, [tapBin, '--reporter=tap', ...coverage, ...files], {
  stdio: ['inherit', 'pipe', 'inherit'],
  env: { ...process.env, FORCE_COLOR: '0' },
});

let summary;
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  const text = tail + chunk.toString('utf8');
  const lines = text.split('\n');
  tail = lines.pop();
  for (const line of lines) {
    const m = /^# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?(?:, skip: (\d+))?/.exec(line);
    if (m) summary = { pass: +m[2], fail: +(m[3] ?? 0), skip: +(m[4] ?? 0) };
  }
});
child.on('close', (code, signal) => {
  const exit = code ?? (signal ? 1 : 0);
  if (!summary) summary = { pass: 0, fail: exit === 0 ? 0 : 1, skip: 0 };
  if (exit !== 0 && summary.fail === 0) summary.fail = 1;
  const skipped = summary.skip ? `, ${summary.skip} skipped` : '';
  process.stdout.write(`\n${summary.pass} passed, ${summary.fail} failed${skipped}\n`);
  process.exit(exit);
});
