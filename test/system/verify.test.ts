import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from '../helpers/tap.js';
import { MAIN, startCli } from '../helpers/cli.js';

// One real mock (strict mode, so an unknown key is a 401) serves every target of this file; each
// case uses its own key, its own tenant.
const KEYS = { seeded: 'nk_test_verify_seeded', empty: 'nk_test_verify_empty', drift: 'nk_test_verify_drift' };
const mock = startCli(['--port', '0', '--db', ':memory:', '--clock', 'manual', '--keys', Object.values(KEYS).join(',')]);
t.teardown(() => void mock.child.kill('SIGTERM'));
const { url } = await mock.ready;

type Json = Record<string, any>;

async function api(key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Json> {
  const raw = typeof body === 'string';
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': raw ? 'application/octet-stream' : 'application/json' }), ...headers },
    body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return text ? JSON.parse(text) : {};
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  json?: Json;
  /** The --json file as written. */
  jsonText: string;
}

const scratch = mkdtempSync(join(tmpdir(), 'nodus-verify-'));
t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
let runs = 0;

/** `nodus-mock verify` as a user runs it: the shipped bundle in a process of its own. */
function verify(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const jsonFile = join(scratch, `report-${++runs}.json`);
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, 'verify', ...args, '--json', jsonFile], { env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      let json: Json | undefined;
      let jsonText = '';
      try {
        jsonText = readFileSync(jsonFile, 'utf8');
        json = JSON.parse(jsonText);
      } catch {
        json = undefined;
      }
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr, json, jsonText });
    });
  });
}

// The seeded tenant has a launched run (so the workload reads are called), an asset and a webhook
// (whose secret must not be printed), and a preview whose review token must not be printed either.
const preview = await api(KEYS.seeded, 'POST', '/v1/rl-runs/preview', { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'evaluate' });
await api(KEYS.seeded, 'POST', '/v1/rl-runs', { ...preview.configuration, review_token: preview.review_token }, { 'idempotency-key': 'verify-seed' });
await api(KEYS.seeded, 'POST', '/_mock/clock/advance', { seconds: 7200 });
await api(KEYS.seeded, 'POST', '/v1/assets/upload?name=train.py', 'print(1)\n');
const webhook = await api(KEYS.seeded, 'PUT', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook' });
const SECRETS = [KEYS.seeded, preview.review_token as string, webhook.secret as string];

const FREE_CALLS = /^(GET \/v1\/.*|POST \/v1\/rl-runs\/preview|POST \/v1\/workloads\/validate)$/;

t.test('against the mock: no drift, exit 0, only free calls, and the target unchanged', async (t) => {
  t.equal(preview.review_token.length, 64, 'the seed previewed a launchable run');
  const before = { workloads: await api(KEYS.seeded, 'GET', '/v1/workloads'), assets: await api(KEYS.seeded, 'GET', '/v1/assets'), webhook: await api(KEYS.seeded, 'GET', '/v1/webhooks') };
  await api(KEYS.seeded, 'DELETE', '/_mock/requests');

  const run = await verify(['--base-url', url, '--api-key', KEYS.seeded]);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout.trim().split('\n').at(-1), /^no drift: 23 operations checked/);
  t.equal(run.json?.exit_code, 0);
  t.equal(run.json?.operations.length, 23);
  t.same(run.json?.operations.filter((o: Json) => o.skipped !== undefined), [], 'every operation was called, the workload reads with the launched run');
  t.same(run.json?.findings.filter((f: Json) => f.drift), []);

  const journal = (await api(KEYS.seeded, 'GET', '/_mock/requests?limit=1000')).requests as Json[];
  t.ok(journal.length >= 23, `${journal.length} requests reached the target`);
  for (const r of journal) t.match(`${r.method} ${r.path}`, FREE_CALLS, `${r.method} ${r.path} is free and changes nothing`);
  const after = { workloads: await api(KEYS.seeded, 'GET', '/v1/workloads'), assets: await api(KEYS.seeded, 'GET', '/v1/assets'), webhook: await api(KEYS.seeded, 'GET', '/v1/webhooks') };
  t.same(after, before, 'workloads, assets and the webhook are as they were');

  for (const secret of SECRETS) {
    for (const [name, text] of [['stdout', run.stdout], ['stderr', run.stderr], ['json', JSON.stringify(run.json)]]) t.notOk(text.includes(secret), `no secret in ${name}`);
  }
});

t.test('with no workload nor asset, their reads are reported as not called and the run still passes', async (t) => {
  const run = await verify(['--base-url', url], { NODUS_API_KEY: KEYS.empty });
  t.equal(run.code, 0, run.stderr);
  const skipped = run.json?.operations.filter((o: Json) => o.skipped !== undefined).map((o: Json) => o.operation);
  t.ok(skipped.includes('getWorkload') && skipped.includes('getWorkloadRLGradingResults') && skipped.includes('getAsset'), skipped.join(' '));
  t.match(run.stdout, /getWorkload +GET \/v1\/workloads\/\{id\} +- +not called: the account has no workload to read/);
  t.match(run.stdout, /13 not called/);
  t.notOk(run.stdout.includes(KEYS.empty), 'the key from the environment is not printed either');
});

/**
 * A stand-in for a control plane that moved: it answers what the mock answers, changed in five ways.
 * Each change is keyed by the path it applies to.
 */
const DRIFTS: Record<string, (res: { status: number; body: Json }) => void> = {
  '/v1/me': (res) => void (res.status = 201),
  '/v1/rl-runs/preview': (res) => void delete res.body.review_token,
  '/v1/rl-recipes': (res) => void (res.body.recipes[0].version = 100),
  '/v1/assets': (res) => void (res.body.region = 'eu-west'),
  environment: (res) => void res.body.modes.push('distill'),
};

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** A local HTTP target on a free port. */
function listen(handler: Handler): Promise<{ url: string; close: () => void }> {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  })));
}

/**
 * The mock behind a proxy that changes its answers: `drifts` by path, and `own` answers the paths
 * it returns true for by itself.
 */
function standIn(drifts = DRIFTS, own: (path: string, res: ServerResponse) => boolean = () => false) {
  return listen(async (req, res) => {
    const path = new URL(req.url ?? '/', url).pathname;
    if (own(path, res)) return;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = { authorization: req.headers.authorization ?? '' };
    if (req.headers['content-type']) headers['content-type'] = req.headers['content-type'];
    const upstream = await fetch(`${url}${req.url}`, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const type = upstream.headers.get('content-type') ?? '';
    const bytes = Buffer.from(await upstream.arrayBuffer());
    const drift = drifts[path] ?? (/^\/v1\/rl-environments\/[^/]+$/.test(path) ? drifts.environment : undefined);
    if (!type.startsWith('application/json') || !drift) {
      res.writeHead(upstream.status, { 'content-type': type });
      res.end(bytes);
      return;
    }
    const answer = { status: upstream.status, body: JSON.parse(bytes.toString('utf8')) as Json };
    drift(answer);
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
}

t.test('a target that drifts: exit 1, each finding names the operation and a JSON pointer', async (t) => {
  // Its own tenant with a run of its own, so the workload reads are called.
  const p = await api(KEYS.drift, 'POST', '/v1/rl-runs/preview', { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'evaluate' });
  await api(KEYS.drift, 'POST', '/v1/rl-runs', { ...p.configuration, review_token: p.review_token }, { 'idempotency-key': 'verify-drift' });
  const target = await standIn();
  t.teardown(target.close);

  const run = await verify(['--base-url', target.url, '--api-key', KEYS.drift]);
  t.equal(run.code, 1, run.stderr);
  t.equal(run.stderr.trim().split('\n').length, 1, 'one line on stderr');
  t.match(run.stderr, /^nodus-mock verify: drift: 4 findings in 4 operations/);
  const lines = run.json?.findings.map((f: Json) => `${f.drift ? 'drift' : 'info'} ${f.kind} ${f.operation} ${f.pointer}: ${f.message}`);
  t.same(lines.sort(), [
    'drift enum getRLEnvironment /modes/2: "distill" is not one of "train", "evaluate"',
    'drift missing previewRLRun /review_token: missing',
    'drift status identity /: status 201 is not one the document lists (200, 401)',
    'drift type listRLRecipes /recipes/0/version: expected string, got integer',
    'info new listAssets /region: a field the document does not know',
    // The mock's own environments carry fields its document leaves open: new there too.
    ...(run.json?.findings ?? []).filter((f: Json) => f.kind === 'new' && /RLEnvironments?$/.test(f.operation)).map((f: Json) => `info new ${f.operation} ${f.pointer}: ${f.message}`),
  ].sort());
  t.match(run.stdout, /missing +previewRLRun \/review_token: missing/, 'the table names the finding as the JSON does');
  t.match(run.stdout, /new \(info\) +listAssets \/region: a field the document does not know/);
  t.notOk(run.stdout.includes(KEYS.drift) || run.stdout.includes(p.review_token), 'neither the key nor the review token is printed');
});

t.test('--only checks the operations named', async (t) => {
  const run = await verify(['--base-url', url, '--api-key', KEYS.seeded, '--only', 'identity,getAsset']);
  t.equal(run.code, 0, run.stderr);
  t.same(run.json?.operations.map((o: Json) => [o.operation, o.status]), [['identity', 200], ['getAsset', 200]], 'the asset list was read for the id, not reported');
});

t.test('a refused connection, a refused key and a usage mistake exit 2 with one line', async (t) => {
  const closed = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
  const cases: [string, string[], RegExp][] = [
    ['refused connection', ['--base-url', `http://127.0.0.1:${closed}`, '--api-key', KEYS.seeded], /^nodus-mock verify: GET \/v1\/me got no answer from http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED$/],
    ['401', ['--base-url', url, '--api-key', 'nk_test_not_a_key_of_this_target'], /^nodus-mock verify: GET \/v1\/me answered 401: the target refused the API key$/],
    ['no key', ['--base-url', url], /^nodus-mock verify: give --api-key \(or NODUS_API_KEY\)/],
    ['not a URL', ['--base-url', 'ftp://x', '--api-key', 'k'], /^nodus-mock verify: --base-url must be http or https/],
    ['unknown operation', ['--base-url', url, '--api-key', 'k', '--only', 'createRLRun'], /^nodus-mock verify: --only names operations verify does not call: createRLRun/],
  ];
  for (const [name, args, reason] of cases) {
    const run = await verify(args, { NODUS_API_KEY: '' });
    t.equal(run.code, 2, name);
    t.equal(run.stderr.trim().split('\n').length, 1, `${name}: one line`);
    t.match(run.stderr.trim(), reason, name);
    t.notOk(run.stderr.includes('nk_test_not_a_key'), `${name}: the key is not printed`);
  }
});

/** Whichever comes first; the other's listener is removed, or each wait would leave one on the response. */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/** A JSON answer of 33 MiB of spaces: one over the 32 MiB verify reads. */
async function flood(res: ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('[');
  const mib = Buffer.alloc(1 << 20, 0x20);
  for (let i = 0; i < 33 && !res.destroyed; i++) {
    if (!res.write(mib)) await drainedOrClosed(res);
  }
  res.end(']');
}

t.test('a target whose every answer is over 32 MiB: nothing checked, exit 2 with the reason', async (t) => {
  const target = await listen((_, res) => flood(res));
  t.teardown(target.close);
  const run = await verify(['--base-url', target.url, '--api-key', KEYS.seeded]);
  t.equal(run.code, 2, run.stderr);
  t.equal(run.stderr, 'nodus-mock verify: nothing could be checked (23 unchecked): identity: the answer is over 32 MiB, so it was not read\n');
  t.match(run.json, { exit_code: 2, result: 'not checked' });
  t.equal(run.json?.operations.filter((o: Json) => o.unchecked !== undefined).length, 23, 'every operation is unchecked');
  t.match(run.json?.findings[0], { operation: 'identity', pointer: '/', kind: 'unchecked', message: 'the answer is over 32 MiB, so it was not read', drift: false });
  t.match(run.stdout, /identity +GET \/v1\/me +200 +unchecked: the answer is over 32 MiB, so it was not read/);
  t.match(run.stdout, /getAsset +GET \/v1\/assets\/\{id\} +- +unchecked: not called: the answer of listAssets could not be read/);
});

t.test('a target that never answers: each call ends at --timeout, nothing checked, exit 2', async (t) => {
  const target = await listen(() => undefined);
  t.teardown(target.close);
  const run = await verify(['--base-url', target.url, '--api-key', KEYS.seeded, '--timeout', '0.2']);
  t.equal(run.code, 2, run.stderr);
  t.equal(run.stderr, 'nodus-mock verify: nothing could be checked (23 unchecked): identity: no answer within 0.2 s\n');
  t.match(run.stdout, /identity +GET \/v1\/me +- +unchecked: no answer within 0\.2 s/);
});

t.test('some answers unreadable, the rest matching: the unchecked ones listed, exit 3', async (t) => {
  const target = await standIn({}, (path, res) => {
    if (path === '/v1/me') res.socket?.destroy();
    else if (path === '/v1/assets') void flood(res);
    else if (path === '/v1/rl-environments') res.writeHead(200, { 'content-type': 'application/json' }).end('<html>busy</html>');
    else if (path === '/v1/webhooks') res.writeHead(200, { 'content-type': 'application/json' }).write('{"url":');
    else return false;
    return true;
  });
  t.teardown(target.close);
  const run = await verify(['--base-url', target.url, '--api-key', KEYS.seeded, '--timeout', '2']);
  t.equal(run.code, 3, run.stderr);
  t.match(run.stderr, /^nodus-mock verify: unchecked: 7 operations could not be checked, no drift in the rest \(16 operations checked(, \d+ new fields?)?, 7 unchecked\)\n$/);
  t.match(run.json, { exit_code: 3, result: 'incomplete' });
  const unchecked = run.json?.operations.filter((o: Json) => o.unchecked !== undefined).map((o: Json) => `${o.operation}: ${o.unchecked}`);
  t.same(unchecked, [
    'identity: the connection broke before the answer: UND_ERR_SOCKET',
    'listRLEnvironments: the body is not JSON although it says application/json',
    'getRLEnvironment: not called: the answer of listRLEnvironments could not be read',
    'getRLExampleWorkload: not called: the answer of listRLEnvironments could not be read',
    'listAssets: the answer is over 32 MiB, so it was not read',
    'getAsset: not called: the answer of listAssets could not be read',
    'getWebhook: no complete answer within 2 s',
  ]);
  t.same(run.json?.findings.filter((f: Json) => f.drift), [], 'what was checked matches');
  t.match(run.stdout, /unchecked +getWebhook \/: no complete answer within 2 s/, 'the findings table lists them too');
});

/** Every spelling of `key` a hostile target echoes, and the JSON report's own escaping of it. */
function spellings(key: string): string[] {
  const pointer = key.replaceAll('~', '~0').replaceAll('/', '~1');
  const everyByte = (hex: (b: number) => string) => [...Buffer.from(key, 'utf8')].map((b) => `%${hex(b)}`).join('');
  return [
    key, key.toLowerCase(), key.toUpperCase(), pointer, pointer.toLowerCase(), pointer.toUpperCase(),
    encodeURIComponent(key), encodeURIComponent(key).toLowerCase(), encodeURIComponent(pointer),
    everyByte((b) => b.toString(16).toUpperCase().padStart(2, '0')), everyByte((b) => b.toString(16).padStart(2, '0')),
    Buffer.from(`${key}:`).toString('base64'), Buffer.from(key).toString('base64'),
    JSON.stringify(key).slice(1, -1),
  ];
}

t.test('a hostile target that echoes the key every way: no spelling of it in any output', async (t) => {
  const key = 'Nk_Live/Hostile~Key "Q" 42+Z';
  const forms = spellings(key);
  const target = await listen((req, res) => {
    const echo = Object.fromEntries(forms.map((f, i) => [`x-echo-${i}`, f]));
    echo['www-authenticate'] = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
    if (new URL(req.url ?? '/', 'http://x').pathname === '/v1/me') {
      // Field names reach the report as JSON pointers of new fields.
      res.writeHead(200, { ...echo, 'content-type': 'application/json' });
      res.end(JSON.stringify(Object.fromEntries([...forms, `Basic ${forms.at(-3)}`].map((f) => [f, 1]))));
    } else {
      // The content type reaches it lowercased; the upper case one must go too.
      res.writeHead(200, { ...echo, 'content-type': `application/x.${forms.join('.').toUpperCase()}` });
      res.end('{}');
    }
  });
  t.teardown(target.close);
  const run = await verify(['--base-url', target.url], { NODUS_API_KEY: key });
  t.equal(run.code, 1, run.stderr);
  t.match(run.stdout, /content-type +listRLRecipes \/: application\/x\.\[redacted\]/, 'the echoes reached the report, redacted');
  t.match(run.stdout, /new \(info\) +identity \/\[redacted\]: a field the document does not know/);
  for (const [name, text] of [['stdout', run.stdout], ['stderr', run.stderr], ['json', run.jsonText]]) {
    for (const form of forms) t.notOk(text.toLowerCase().includes(form.toLowerCase()), `${name} holds no ${JSON.stringify(form)}`);
  }
});

t.test('--help lists the command; verify --help lists its flags and operations', async (t) => {
  const help = await new Promise<string>((resolve) => execFile(process.execPath, [MAIN, '--help'], (_, out) => resolve(out)));
  t.match(help, /nodus-mock verify --base-url URL --api-key KEY \[--json FILE\] \[--only OPS\] \[--timeout SECONDS\]/);
  t.match(help, /^ {2}verify +check a real Nodus control plane/m);
  const own = await new Promise<string>((resolve) => execFile(process.execPath, [MAIN, 'verify', '--help'], (_, out) => resolve(out)));
  for (const word of ['--base-url', '--api-key', '--json', '--only', '--timeout', 'previewRLRun', 'getWebhook', 'docs/verify.md']) t.match(own, word);
});
