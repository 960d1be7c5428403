// `npm run bench:peers` (optional, not in CI): the mock side by side with what a user would pick
// instead for a static GET, Prism (an OpenAPI mock server, npm) and WireMock (Java), each serving
// the bytes the mock answers on GET /v1/rl-recipes. Cold start (spawn to the first 200 on that
// path), then requests per second and p99 under the same load, alternating as `npm run bench`
// does. The peers are installed from npm into a cache outside the tree
// ($NODUS_MOCK_PEERS_HOME, default ~/.cache/nodus-mock/peers); WireMock needs `java` on PATH
// (`apt-get install -y openjdk-17-jre-headless`) and is left out without it. Prism 5.16 asks
// for Node 24.18 or later.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAIN } from './children.js';
import { load, type LoadRequest, type LoadResult } from './load.js';
import { benchKey, get } from './mock-api.js';
import { markdownTable } from './report.js';
import { alternate, figure, type Figure } from './rounds.js';
import { readSettings } from './settings.js';

const PEERS = { prism: '@stoplight/prism-cli@5.16.0', wiremock: 'wiremock@3.13.2' };
const home = process.env.NODUS_MOCK_PEERS_HOME || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'nodus-mock', 'peers');
const modules = join(home, 'node_modules');
const PRISM = join(modules, '@stoplight', 'prism-cli', 'dist', 'index.js');
const WIREMOCK_JAR = join(modules, 'wiremock', 'build', 'wiremock-standalone-3.13.2.jar');

const log = (message: string) => process.stderr.write(`[bench:peers] ${message}\n`);

function installPeers(): void {
  if (existsSync(PRISM) && existsSync(WIREMOCK_JAR)) return;
  log(`installing ${Object.values(PEERS).join(' ')} into ${home}`);
  mkdirSync(home, { recursive: true });
  // No install scripts: neither peer needs one to run (one dependency's only reports usage).
  const r = spawnSync('npm', ['install', '--prefix', home, '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', ...Object.values(PEERS)], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm install of the peers failed (exit ${r.status})`);
}

const hasJava = () => !spawnSync('java', ['-version'], { stdio: 'ignore' }).error;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

interface Server {
  url: string;
  /** Milliseconds from spawn to the first 200 on the probed path. */
  readyMs: number;
  stop(): Promise<void>;
}

interface Peer {
  label: string;
  start(port: number): [string, string[]];
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Spawns a server on `port` and polls `path` until it answers 200. */
async function startServer(peer: Peer, request: LoadRequest): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const [cmd, args] = peer.start(port);
  const started = performance.now();
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  running.add(child);
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    running.delete(child);
    resolve();
  }));
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    if (gone) throw new Error(`${peer.label} exited before answering: ${err.slice(-500)}`);
    const res = await fetch(url + request.path, { headers: request.headers as Record<string, string> }).catch(() => undefined);
    if (res?.status === 200) {
      await res.arrayBuffer();
      break;
    }
    await res?.arrayBuffer();
    await new Promise((r) => setTimeout(r, 2));
  }
  const readyMs = performance.now() - started;
  return {
    url,
    readyMs,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

const settings = readSettings();
installPeers();
const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-peers-'));
const key = benchKey();
const request: LoadRequest = { path: '/v1/rl-recipes', headers: { authorization: `Bearer ${key}` } };
try {
  let n = 0;
  const mockPeer: Peer = { label: 'nodus-mock CLI', start: (port) => [process.execPath, [MAIN, '--port', String(port), '--db', join(dir, `mock-${n++}.db`), '--log-level', 'silent']] };

  // The bytes every server serves: what the mock answers.
  const probe = await startServer(mockPeer, { ...request, path: '/readyz' });
  const bytes = await get(probe.url, key, request.path);
  await probe.stop();
  const body = JSON.parse(bytes) as unknown;

  const openapi = join(dir, 'recipes-openapi.json');
  writeFileSync(openapi, JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'GET /v1/rl-recipes as nodus-mock answers it', version: '1' },
    paths: { '/v1/rl-recipes': { get: { responses: { 200: { description: 'the catalog', content: { 'application/json': { schema: { type: 'object' }, example: body } } } } } } },
  }));
  const wiremockRoot = join(dir, 'wiremock');
  mkdirSync(join(wiremockRoot, 'mappings'), { recursive: true });
  mkdirSync(join(wiremockRoot, '__files'));
  writeFileSync(join(wiremockRoot, '__files', 'recipes.json'), bytes);
  writeFileSync(join(wiremockRoot, 'mappings', 'recipes.json'), JSON.stringify({
    request: { method: 'GET', url: '/v1/rl-recipes' },
    response: { status: 200, bodyFileName: 'recipes.json', headers: { 'content-type': 'application/json; charset=utf-8' } },
  }));

  // Each peer as a user would run it, quiet like the mock (--log-level silent).
  const peers: Peer[] = [
    { label: 'Prism 5.16 (mock from an OpenAPI example)', start: (port) => [process.execPath, [PRISM, 'mock', '-h', '127.0.0.1', '-p', String(port), '-v', 'silent', openapi]] },
  ];
  if (hasJava()) {
    peers.push({
      label: 'WireMock 3.13 standalone (Java)',
      start: (port) => ['java', ['-jar', WIREMOCK_JAR, '--port', String(port), '--bind-address', '127.0.0.1', '--root-dir', wiremockRoot, '--disable-banner', '--disable-request-logging', '--no-request-journal']],
    });
  } else {
    log('no java on PATH: WireMock is left out (apt-get install -y openjdk-17-jre-headless)');
  }

  // Every peer must serve the same document, or the comparison is of different work.
  for (const peer of peers) {
    const s = await startServer(peer, request);
    const served = await (await fetch(s.url + request.path)).text();
    await s.stop();
    if (JSON.stringify(JSON.parse(served)) !== JSON.stringify(body)) throw new Error(`${peer.label} does not serve the mock's document`);
    log(`${peer.label}: serves the same document (${Buffer.byteLength(served)} bytes, the mock ${Buffer.byteLength(bytes)})`);
  }

  const figures: Figure[] = [];
  const all = [mockPeer, ...peers];
  log(`cold start, ${settings.shortRounds} rounds`);
  const cold = await alternate(settings.shortRounds, Object.fromEntries(all.map((p) => [p.label, async () => {
    const s = await startServer(p, request);
    await s.stop();
    return s.readyMs;
  }])));
  for (const p of peers) {
    figures.push(figure(
      { id: `peers-cold-start-${p.label.split(' ')[0].toLowerCase()}`, title: 'Cold start: spawn to first 200 on GET /v1/rl-recipes', unit: 'ms', target: { op: '<=', ratio: 0.25 } },
      { label: mockPeer.label, rounds: cold[mockPeer.label] },
      { label: p.label, rounds: cold[p.label] },
    ));
  }

  log(`GET /v1/rl-recipes, ${settings.rounds} rounds of ${settings.seconds} s`);
  const servers = await Promise.all(all.map((p) => startServer(p, request)));
  try {
    const run = (s: Server) => () => load(s.url, request, { seconds: settings.seconds, connections: settings.connections });
    for (const s of servers) if (settings.warmupSeconds > 0) await load(s.url, request, { seconds: settings.warmupSeconds, connections: settings.connections });
    const r = await alternate(settings.rounds, Object.fromEntries(all.map((p, i) => [p.label, run(servers[i])]))) as Record<string, LoadResult[]>;
    const side = (label: string, pick: (x: LoadResult) => number) => ({ label, rounds: r[label].map(pick) });
    for (const p of peers) {
      const id = `peers-recipes-${p.label.split(' ')[0].toLowerCase()}`;
      figures.push(figure({ id, title: 'GET /v1/rl-recipes', unit: 'req/s', target: { op: '>=', ratio: 5 } }, side(mockPeer.label, (x) => x.rps), side(p.label, (x) => x.rps)));
      figures.push(figure({ id: `${id}-p99`, title: 'GET /v1/rl-recipes: p99 latency', unit: 'ms' }, side(mockPeer.label, (x) => x.p99Ms), side(p.label, (x) => x.p99Ms)));
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }

  const scored = figures.filter((f) => f.pass !== undefined);
  process.stdout.write(
    `\nnodus-mock against its peers, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}; ` +
      `cold start ${settings.shortRounds} rounds, load ${settings.rounds} rounds of ${settings.seconds} s at ${settings.connections} connections; medians, ratio = mock / peer\n\n` +
      `${markdownTable(figures)}\n\n${scored.filter((f) => f.pass).length} of ${scored.length} targets met\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
