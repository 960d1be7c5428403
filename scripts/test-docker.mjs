#!/usr/bin/env node
// npm run test:docker: the container path end to end, the way a user runs it. Builds the image,
// starts docker-compose.yml under a throwaway project name on a free loopback port, waits for the
// health check, reaches the service by its name and sees a foreign Host refused, changes state
// through the API, stops the container (it must exit 0: SIGTERM reached node), starts a new container on the same volume, proves the state survived, and tears
// everything down (`down -v`) whatever happened. Then the pytest plugin's --nodus-mock-image on the
// same image: a session whose server is a container, which must be gone after the session and after
// a SIGKILL of pytest. Exits 0 with one "skipped" line when no Docker engine is reachable, so it is
// safe to run anywhere.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** What the pytest session below runs: a run launched over /v1, its completion delivered to a receiver on this host. */
const PYTEST_IN_CONTAINER = `
import json, os, signal, urllib.request

def call(mock, path, body, key=None):
    headers = {"Authorization": "Bearer " + mock.api_key, "Content-Type": "application/json", **({"Idempotency-Key": key} if key else {})}
    request = urllib.request.Request(mock.url + path, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read())

def test_a_run_in_the_container_reaches_a_receiver_on_the_host(nodus_mock, nodus_mock_server, nodus_webhook_receiver):
    with open("container", "w") as file:
        file.write(nodus_mock_server.container)
    nodus_webhook_receiver.respond = [500, 204]
    preview = call(nodus_mock, "/v1/rl-runs/preview", {"recipe_id": "reasoning-gym-leg-counting", "recipe_version": "1.0.0", "mode": "evaluate"})
    run = call(nodus_mock, "/v1/rl-runs", {**preview["configuration"], "review_token": preview["review_token"]}, key="docker-1")
    assert nodus_webhook_receiver.wait_for("completed", run["workload_id"])["data"]["status"] == "completed"
    assert nodus_mock.webhook_deliveries(workload_id=run["workload_id"])[0]["attempts"][0]["status_code"] == 500

def test_killed(nodus_mock, nodus_mock_server):
    with open("killed", "w") as file:
        file.write(nodus_mock_server.container + " " + nodus_mock.url)
    os.kill(os.getpid(), signal.SIGKILL)
`;

const containerGone = async (name) => (await mustRun('docker', ['ps', '-aq', '--filter', `name=^/${name}$`])).trim() === '';

/**
 * The pytest plugin with --nodus-mock-image, installed by pip into a venv that sees Debian's
 * pytest (as docs/pytest.md says): a session against a container of the image just built, then
 * no container left, also after pytest is killed with SIGKILL (its keeper runs `docker stop`).
 */
async function checkPytestPlugin() {
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
  if (spawnSync(python, ['-c', 'import venv, ensurepip, pytest'], { stdio: 'ignore' }).status !== 0) {
    say('pytest plugin: skipped (python3-venv or python3-pytest missing)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-docker-pytest-'));
  try {
    const source = join(dir, 'src');
    cpSync(join(root, 'python'), source, { recursive: true, filter: (path) => !/(^|\/)(build|__pycache__|[^/]*\.egg-info)$/.test(path) });
    await mustRun(python, ['-m', 'venv', '--system-site-packages', '--without-pip', join(dir, 'venv')]);
    const venvPython = join(dir, 'venv', 'bin', 'python');
    await mustRun(venvPython, ['-m', 'pip', 'install', '--quiet', '--no-build-isolation', '--no-deps', '--no-index', source]);
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'test_in_container.py'), PYTEST_IN_CONTAINER);
    const env = { ...process.env, NODUS_MOCK_IMAGE: IMAGE, PYTEST_ADDOPTS: '' };
    delete env.NODUS_MOCK_CMD;
    const pytest = (...args) => new Promise((resolve) => {
      const child = spawn(venvPython, ['-m', 'pytest', '-p', 'no:cacheprovider', '-q', ...args], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('close', (code, signal) => resolve({ code, signal, out }));
    });

    let since = Date.now();
    const session = await pytest('-k', 'not killed');
    check(session.code === 0, `pytest --nodus-mock-image exited ${session.code}:\n${session.out}`);
    const name = readFileSync(join(project, 'container'), 'utf8');
    check(await containerGone(name), `container ${name} is still there after the session`);
    say(`pytest plugin: a session on ${IMAGE} (a receiver on the host got a retried delivery) in ${seconds(since)}; its container is gone`);

    since = Date.now();
    const killed = await pytest('-k', 'killed');
    check(killed.signal === 'SIGKILL', `pytest was to die of SIGKILL, not ${killed.signal ?? killed.code}:\n${killed.out}`);
    const [killedName, url] = readFileSync(join(project, 'killed'), 'utf8').split(' ');
    for (;;) {
      if (await containerGone(killedName)) break;
      check(Date.now() - since < 60_000, `container ${killedName} outlived a SIGKILL of pytest by 60 s`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const refused = await fetch(`${url}/healthz`).then(() => false, () => true);
    check(refused, `${url} still answers after pytest was killed`);
    say(`pytest plugin: after a SIGKILL of pytest its keeper stopped container ${killedName} within ${seconds(since)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
  await checkPytestPlugin();
  say(`passed in ${seconds(began)}`);
}

main().catch((err) => {
  say(`FAILED after ${seconds(began)}: ${err instanceof Failure ? err.message : err.stack}`);
  process.exit(1);
});
