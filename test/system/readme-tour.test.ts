import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { packageRoot } from '../../server/boot/package-info.js';
import { startServer } from '../helpers/server.js';

const have = (tool: string) => spawnSync(tool, ['--version']).status === 0;

/** The README's shell blocks that talk to a running server, in order: the walkthrough. */
function tourBlocks(): string[] {
  const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .filter((block) => block.includes('$NODUS_BASE_URL') && !/\b(npm|docker)\b/.test(block));
}

/** Answers the walkthrough provokes on purpose: method, path pattern, status. */
const EXPECTED_FAILURES: [string, RegExp, number][] = [
  ['POST', /\/v1\/rl-runs$/, 402], // the budget refusal
  ['POST', /\/v1\/rl-runs$/, 0], // the ambiguous launch: the answer is dropped
  ['GET', /\/v1\/rl-recipes$/, 429], // the rate limit
  ['POST', /\/v1\/rl-runs$/, 503], // spend_check_unavailable
  ['POST', /\/v1\/rl-runs$/, 409], // the same key with another body
];

t.test('every curl command of the README runs against a fresh server as its comments say', { skip: !(have('bash') && have('curl') && have('python3')) && 'needs bash, curl and python3' }, async (t) => {
  const s = await startServer(t);
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-readme-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const blocks = tourBlocks();
  t.ok(blocks.length >= 15, `${blocks.length} blocks`);
  // Every curl reports its method, status and URL on stderr; its output is left as the README shows it.
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
  const calls = [...run.stderr.matchAll(/^CURL (\S+) (\d{3}) (\S+)$/gm)].map((m) => ({ method: m[1], status: Number(m[2]), url: m[3] }));
  const curlCount = blocks.join('\n').match(/(^|[|;&(]\s*|\$\()curl /gm)?.length ?? 0;
  t.ok(calls.length >= curlCount, `every curl ran (${calls.length} calls for ${curlCount} commands)`);
  const unexpected = calls.filter((c) => {
    if (c.status >= 200 && c.status < 300) return false;
    const i = EXPECTED_FAILURES.findIndex(([m, path, status]) => m === c.method && path.test(new URL(c.url).pathname) && status === c.status);
    if (i === -1) return true;
    EXPECTED_FAILURES.splice(i, 1);
    return false;
  });
  t.same(unexpected, [], 'no status the README does not announce');
  t.same(EXPECTED_FAILURES.map(([m, p, st]) => `${m} ${p} ${st}`), [], 'each announced failure happened');
  t.notMatch(run.stderr.replace(/^CURL .*$/gm, ''), /Traceback|command not found|No such file/, 'no shell or python error');
  t.match(run.stdout, /"status":"completed"/, 'the run was followed to its end');
  t.match(run.stdout, /\[1, 2\]\n/, 'the recovery added generation 2');
  const digests = /x-nodus-sha256: ([0-9a-f]{64})\r?\n([0-9a-f]{64}) {2}results\.json/i.exec(run.stdout);
  t.ok(digests && digests[1] === digests[2], 'the downloaded bytes match X-Nodus-SHA256');
});
