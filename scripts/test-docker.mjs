#!/usr/bin/env node
// npm run test:docker: the container path end to end, the way a user runs it. Builds the image,
// starts docker-compose.yml under a throwaway project name on a free loopback port, waits for the
// health check, reaches the service by its name and sees a foreign Host refused, changes state
// through the API, stops the container (it must exit 0: SIGTERM reached node), starts a new container on the same volume, proves the state survived, and tears
// everything down (`down -v`) whatever happened. Exits 0 with one "skipped" line when no Docker
// engine is reachable, so it is safe to run anywhere.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const COMPOSE_FILE = 'docker-compose.yml';
const SERVICE = 'nodus-mock';
const composeText = readFileSync(new URL(`../${COMPOSE_FILE}`, import.meta.url), 'utf8');
// The tag compose runs is the one built here: read it from the compose file so they cannot drift.
const IMAGE = /^\s+image:\s*["']?([^"'\s]+)/m.exec(composeText)[1];
const HEALTHY_WITHIN_MS = 90_000;
const began = Date.now();

const say = (line) => process.stdout.write(`test:docker: ${line}\n`);
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

class Failure extends Error {}
const check = (ok, message) => {
  if (!ok) throw new Failure(message);
};

/** Runs a command to completion; output is captured unless `stream` is set. */
function run(cmd, args, { env = process.env, stream = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', stream ? 'inherit' : 'pipe', stream ? 'inherit' : 'pipe'] });
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

async function mustRun(cmd, args, options) {
  const r = await run(cmd, args, options);
  check(r.code === 0, `\`${[cmd, ...args].join(' ')}\` exited ${r.code}\n${r.out.trimEnd()}`);
  return r.out;
}

function engineReachable() {
  const r = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 30_000 });
  return !r.error && r.status === 0;
}

/** `docker compose` (v2) where it exists, else Debian's `docker-compose` (v1). */
function composeCommand() {
  for (const cmd of [['docker', 'compose'], ['docker-compose']]) {
    const r = spawnSync(cmd[0], [...cmd.slice(1), 'version', '--short'], { encoding: 'utf8' });
    if (!r.error && r.status === 0) return { cmd, version: r.stdout.trim() };
  }
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitHealthy(containerId) {
  const since = Date.now();
  for (;;) {
    const state = (await mustRun('docker', ['inspect', '-f', '{{.State.Status}} {{.State.Health.Status}}', containerId])).trim();
    if (state === 'running healthy') return seconds(since);
    check(!state.startsWith('exited') && !state.endsWith('unhealthy'), `container ${containerId.slice(0, 12)} is ${state}`);
    check(Date.now() - since < HEALTHY_WITHIN_MS, `not healthy after ${HEALTHY_WITHIN_MS / 1000} s (${state})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** One API call with this run's key; JSON bodies are parsed. */
function client(baseUrl, key) {
  return async (method, path, body, headers = {}) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    const json = (res.headers.get('content-type') ?? '').includes('json') && text !== '' ? JSON.parse(text) : text;
    return { status: res.status, headers: res.headers, body: json };
  };
}

const expectStatus = (res, status, what) =>
  check(res.status === status, `${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);

/**
 * Launches an RL run through the contract's preview + idempotent launch, and returns the check to
 * repeat after the restart: the same request under the same Idempotency-Key must be a replay of
 * the same workload, which proves the run and its key were stored in the volume.
 */
async function launchRun(api) {
  const recipes = await api('GET', '/v1/rl-recipes');
  expectStatus(recipes, 200, 'GET /v1/rl-recipes');
  const preview = await api('POST', '/v1/rl-runs/preview', {
    recipe_id: 'reasoning-gym-leg-counting',
    recipe_version: '1.0.0',
    mode: 'evaluate',
  });
  expectStatus(preview, 200, 'POST /v1/rl-runs/preview');
  check(preview.body.launchable === true, `the preview is not launchable: ${JSON.stringify(preview.body.blocking_reasons)}`);
  const request = { ...preview.body.configuration, review_token: preview.body.review_token };
  const headers = { 'idempotency-key': `test-docker-${randomBytes(8).toString('hex')}` };
  const launched = await api('POST', '/v1/rl-runs', request, headers);
  expectStatus(launched, 202, 'POST /v1/rl-runs');
  check(launched.headers.get('idempotent-replayed') !== 'true', 'the first launch claims to be a replay');
  const workloadId = launched.body.workload_id;
  check(typeof workloadId === 'string' && workloadId !== '', 'the launch answered no workload_id');
  say(`launched workload ${workloadId}`);

  return async () => {
    const again = await api('POST', '/v1/rl-runs', request, headers);
    expectStatus(again, 202, 'same-key launch after the restart');
    check(again.headers.get('idempotent-replayed') === 'true', 'the same-key launch after the restart is not a replay');
    check(again.body.workload_id === workloadId, `the replay names ${again.body.workload_id}, not ${workloadId}`);
    expectStatus(await api('GET', `/v1/workloads/${workloadId}`), 200, 'GET the launched workload after the restart');
    say(`launch check: workload ${workloadId} and its idempotency key survived (a same-key retry is a replay)`);
  };
}

/** GET /readyz on the published port with the Host header given; answers the status. */
function statusWithHost(port, host) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The Host check as compose sets it up: another service reaches the mock by its service name (here
 * from inside the container, which resolves the name on the project network like any service),
 * while a name the mock does not know, as a rebound web page would send, is refused.
 */
async function checkHostNames(containerId, port) {
  const probe = `fetch('http://${SERVICE}:8080/readyz').then(r=>{console.log(r.status)},e=>{console.log(e.cause?.code??e.message)})`;
  const byName = (await mustRun('docker', ['exec', containerId, 'node', '-e', probe])).trim();
  check(byName === '200', `GET http://${SERVICE}:8080/readyz from the project network answered ${byName}`);
  const rebound = await statusWithHost(port, 'rebound.example');
  check(rebound === 403, `a request with Host rebound.example answered ${rebound}, not 403 host_not_allowed`);
  say(`reached as http://${SERVICE}:8080 on the project network; Host rebound.example refused with 403`);
}

async function main() {
  if (!engineReachable()) {
    say('skipped (no Docker engine reachable)');
    return;
  }
  const compose = composeCommand();
  check(compose, 'a Docker engine is reachable but neither `docker compose` nor `docker-compose` is installed');

  const project = `nodus-mock-test-${randomBytes(4).toString('hex')}`;
  const port = await freePort();
  // Every variable the compose file interpolates is pinned to empty (its default) so a developer's
  // shell or .env cannot change what is tested, e.g. strict-mode keys that would refuse ours.
  const env = { ...process.env };
  for (const [, name] of composeText.matchAll(/\$\{(\w+)/g)) env[name] = '';
  env.NODUS_MOCK_PORT = String(port);
  const composeArgs = (...args) => [...compose.cmd.slice(1), '-p', project, '-f', COMPOSE_FILE, ...args];
  const composeRun = (...args) => mustRun(compose.cmd[0], composeArgs(...args), { env });

  await composeRun('config', '-q');
  say(`${COMPOSE_FILE} is valid for ${compose.cmd.join(' ')} ${compose.version}`);

  let since = Date.now();
  say(`building ${IMAGE} (a first build compiles better-sqlite3: a few minutes)`);
  // Host networking: where the engine cannot reach the npm registry itself (README, docker compose).
  await mustRun('docker', ['build', '--network', 'host', '-t', IMAGE, '.'], { stream: true });
  say(`built ${IMAGE} in ${seconds(since)}`);

  let tornDown = false;
  const teardown = () => {
    if (tornDown) return;
    tornDown = true;
    const r = spawnSync(compose.cmd[0], composeArgs('down', '-v', '--remove-orphans'), { cwd: root, env, encoding: 'utf8' });
    say(r.status === 0 ? `project ${project} removed with its volume` : `teardown failed: ${r.stderr}`);
  };
  // An interrupted run must not leave a container publishing a port and a volume behind.
  process.once('SIGINT', () => {
    teardown();
    process.exit(130);
  });

  try {
    await composeRun('up', '-d', '--no-build');
    const first = (await composeRun('ps', '-q', SERVICE)).trim();
    say(`project ${project} up on 127.0.0.1:${port}; healthy after ${await waitHealthy(first)}`);

    const base = `http://127.0.0.1:${port}`;
    const ready = await fetch(`${base}/readyz`);
    check(ready.status === 200, `GET /readyz through the published port answered ${ready.status}`);
    const api = client(base, `nk_test_docker_${randomBytes(6).toString('hex')}`);
    await checkHostNames(first, port);

    expectStatus(await api('PUT', '/_mock/clock', { mode: 'manual' }), 200, 'PUT /_mock/clock');
    const advanced = await api('POST', '/_mock/clock/advance', { seconds: 3600 });
    expectStatus(advanced, 200, 'POST /_mock/clock/advance');
    const { now } = advanced.body;
    say(`clock set to manual and advanced one hour: now ${now}`);
    const afterRestart = await launchRun(api);

    since = Date.now();
    await composeRun('stop', SERVICE);
    const stopTook = seconds(since);
    const exit = (await mustRun('docker', ['inspect', '-f', '{{.State.ExitCode}}', first])).trim();
    check(exit === '0', `the container exited ${exit} on stop: SIGTERM did not reach a clean shutdown`);
    await composeRun('up', '-d', '--no-build', '--force-recreate');
    const second = (await composeRun('ps', '-q', SERVICE)).trim();
    check(second !== first, 'compose reused the container: the restart would not prove the volume holds the state');
    say(`stopped in ${stopTook} (exit 0) and started a new container on the same volume; healthy after ${await waitHealthy(second)}`);

    const clock = await api('GET', '/_mock/clock');
    expectStatus(clock, 200, 'GET /_mock/clock after the restart');
    check(clock.body.mode === 'manual' && clock.body.now === now, `the clock did not survive: ${JSON.stringify(clock.body)}`);
    say(`clock survived the restart: manual, now ${now}`);
    await afterRestart();
  } catch (err) {
    const logs = await run(compose.cmd[0], composeArgs('logs', '--no-color', '--tail', '40'), { env });
    process.stdout.write(`${logs.out.trimEnd()}\n`);
    throw err;
  } finally {
    teardown();
  }
  say(`passed in ${seconds(began)}`);
}

main().catch((err) => {
  say(`FAILED after ${seconds(began)}: ${err instanceof Failure ? err.message : err.stack}`);
  process.exit(1);
});
