import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { startServer } from '../helpers/server.js';

const have = (tool: string) => spawnSync(tool, ['--version']).status === 0;

/** A page's shell blocks that talk to a running server, in order: its walkthrough. */
function walkthrough(page: string): string[] {
  const text = readFileSync(join(packageRoot(), page), 'utf8');
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .filter((block) => block.includes('$NODUS_BASE_URL') && !/\b(npm|docker)\b/.test(block));
}

type Call = { method: string; status: number; url: string };

/** Runs the blocks as one bash script against a fresh server; every curl reports its call on stderr. */
async function runWalkthrough(t: Test, blocks: string[]) {
  const s = await startServer(t);
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-docs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  // The curl output itself is left as the page shows it.
  const script = [
    'curl() { command curl -w "%{stderr}CURL %{method} %{http_code} %{url_effective}\\n" "$@"; }',
    ...blocks,
  ].join('\n');
  // Asynchronously: the server answering these requests runs in this very process.
  const run = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: dir, env: { ...process.env, NODUS_BASE_URL: s.url, NODUS_API_KEY: s.key } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', () => resolve({ stdout, stderr }));
  });
  const calls: Call[] = [...run.stderr.matchAll(/^CURL (\S+) (\d{3}) (\S+)$/gm)].map((m) => ({ method: m[1], status: Number(m[2]), url: m[3] }));
  return { ...run, calls };
}

/**
 * The checks every page gets: each curl ran, no shell or python error, and every answer outside
 * 2xx is one the page provokes on purpose (method, path, status), each of which happened.
 */
function checkCalls(t: Test, blocks: string[], run: { stderr: string; calls: Call[] }, announced: [string, RegExp, number][]) {
  const curlCount = blocks.join('\n').match(/(^|[|;&(]\s*|\$\()curl /gm)?.length ?? 0;
  t.ok(run.calls.length >= curlCount, `every curl ran (${run.calls.length} calls for ${curlCount} commands)`);
  const pending = [...announced];
  const unexpected = run.calls.filter((c) => {
    if (c.status >= 200 && c.status < 300) return false;
    const i = pending.findIndex(([m, path, status]) => m === c.method && path.test(new URL(c.url).pathname) && status === c.status);
    if (i === -1) return true;
    pending.splice(i, 1);
    return false;
  });
  t.same(unexpected, [], 'no status the page does not announce');
  t.same(pending.map(([m, p, st]) => `${m} ${p} ${st}`), [], 'each announced failure happened');
  t.notMatch(run.stderr.replace(/^CURL .*$/gm, ''), /Traceback|command not found|No such file|syntax error/, 'no shell or python error');
}

const tools = have('bash') && have('curl') && have('python3');
const skip = !tools && 'needs bash, curl and python3';

t.test('every curl command of docs/tour.md runs against a fresh server as its comments say', { skip }, async (t) => {
  const blocks = walkthrough('docs/tour.md');
  t.ok(blocks.length >= 15, `${blocks.length} blocks`);
  const run = await runWalkthrough(t, blocks);
  checkCalls(t, blocks, run, [
    ['POST', /\/v1\/rl-runs$/, 402], // the budget refusal
    ['POST', /\/v1\/rl-runs$/, 0], // the ambiguous launch: the answer is dropped
    ['GET', /\/v1\/rl-recipes$/, 429], // the rate limit
    ['POST', /\/v1\/rl-runs$/, 503], // spend_check_unavailable
    ['POST', /\/v1\/rl-runs$/, 409], // the same key with another body
  ]);
  t.match(run.stdout, /"status":"completed"/, 'the run was followed to its end');
  t.match(run.stdout, /\[1, 2\]\n/, 'the recovery added generation 2');
  const digests = /x-nodus-sha256: ([0-9a-f]{64})\r?\n([0-9a-f]{64}) {2}results\.json/i.exec(run.stdout);
  t.ok(digests && digests[1] === digests[2], 'the downloaded bytes match X-Nodus-SHA256');
});

t.test('the curl walkthrough of docs/assets.md runs against a fresh server as its comments say', { skip }, async (t) => {
  const blocks = walkthrough('docs/assets.md');
  t.equal(blocks.length, 1, 'one walkthrough block');
  const run = await runWalkthrough(t, blocks);
  checkCalls(t, blocks, run, [
    ['DELETE', /\/v1\/assets\/asset_[^/]+$/, 409], // asset_in_use while the run is active
  ]);
  t.match(run.stdout, /"name":"train\.py","state":"ready"/, 'the upload is ready');
  t.match(run.stdout, /"error":"asset_in_use"/, 'the active run holds the asset');
  t.match(run.stdout, /"task_id":"t1"/, 'the reported event reads back');
  t.match(run.calls.at(-1), { method: 'DELETE', status: 204 }, 'the asset is deleted once the run has ended');
});
