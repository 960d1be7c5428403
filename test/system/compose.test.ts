// docker-compose.yml, the Dockerfile and the server must agree: the names of the variables the
// container gets, the port, the health check. Docker is not needed here; `npm run test:docker`
// runs the real thing.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from '../helpers/tap.js';
import { parse as parseYaml } from 'yaml';
import { OPTIONS, resolveCli } from '../../server/config.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { startServer } from '../helpers/server.js';

const read = (name: string) => readFileSync(join(packageRoot(), name), 'utf8');
const readme = read('README.md');
// Read by a YAML library (`yaml`): a repeated key or a syntax error throws.
const compose = parseYaml(read('docker-compose.yml'), { prettyErrors: true }) as any;
const service = compose.services['nodus-mock'];

/** Dockerfile instructions with continuation lines joined and comments dropped. */
function dockerfile(source: string): { instruction: string; args: string }[] {
  const joined = source.split('\n').filter((line) => !/^\s*#/.test(line)).join('\n').replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const m = /^\s*(\w+)\s+(.*)$/.exec(line)!;
      return { instruction: m[1].toUpperCase(), args: m[2].trim() };
    });
}
const instructions = dockerfile(read('Dockerfile'));
const runtimeStage = instructions.slice(instructions.findLastIndex((i) => i.instruction === 'FROM'));
const only = (name: string) => {
  const found = runtimeStage.filter((i) => i.instruction === name);
  if (found.length !== 1) throw new Error(`expected one ${name} in the runtime stage, found ${found.length}`);
  return found[0].args;
};
const imageEnv: Record<string, string> = Object.fromEntries(
  runtimeStage
    .filter((i) => i.instruction === 'ENV')
    .flatMap((i) => i.args.split(/\s+/).map((pair) => pair.split('=') as [string, string])),
);

const SERVER_ENV = new Set<string>(Object.values(OPTIONS).map((o) => o.env));
/** Interpolated by compose itself, never seen by the server; each is documented in the README. */
const COMPOSE_ONLY = ['NODUS_MOCK_PORT'];
const INTERPOLATION = /^\$\{(\w+):-([^}]*)\}$/;
/**
 * Compose defaults that differ from the server's on purpose: other services reach the mock by its
 * service name, which the server cannot know, so the compose file adds it to the Host names.
 */
const COMPOSE_DEFAULTS: Record<string, string> = { [OPTIONS.allowedHosts.env]: 'nodus-mock' };

t.test('every variable the container gets is a server option', async (t) => {
  for (const name of [...Object.keys(service.environment), ...Object.keys(imageEnv)]) {
    t.ok(SERVER_ENV.has(name), `${name} is in OPTIONS (server/config.ts)`);
  }
});

t.test('compose passes each setting through from the shell, defaulting to the server default', async (t) => {
  const interpolated = new Set([...read('docker-compose.yml').matchAll(/\$\{(\w+)/g)].map((m) => m[1]));
  for (const [name, value] of Object.entries(service.environment as Record<string, string>)) {
    const m = INTERPOLATION.exec(value);
    t.ok(m, `${name} is \${${name}:-default}`);
    if (!m) continue;
    t.equal(m[1], name, `${name} is read from the variable of the same name`);
    const option = Object.values(OPTIONS).find((o) => o.env === name);
    // Empty means unset to the server (keys: open mode; scenario: none).
    const expected = COMPOSE_DEFAULTS[name] ?? option?.default ?? '';
    t.equal(m[2], expected, `${name} defaults to the server default`);
    interpolated.delete(name);
  }
  t.same([...interpolated].sort(), [...COMPOSE_ONLY].sort(), 'the only other interpolations are the compose-only variables');
  for (const name of COMPOSE_ONLY) t.match(readme, name, `${name} is documented in the README`);

  // What the server sees with nothing set: the compose defaults over the image's ENV.
  const env = { ...imageEnv };
  for (const [name, value] of Object.entries(service.environment as Record<string, string>)) {
    env[name] = INTERPOLATION.exec(value)?.[2] ?? value;
  }
  const request = resolveCli([], env);
  t.equal(request.kind, 'run');
  if (request.kind !== 'run') return;
  t.match(request.config, { host: '0.0.0.0', port: 8080, db: '/data/nodus-mock.db', keys: undefined, clock: 'realtime' });
  t.same(request.config.allowedHosts, [Object.keys(compose.services)[0]], 'the service answers to its compose name');
});

t.test('one port: compose maps to what the image exposes and the server listens on', async (t) => {
  t.equal(service.ports.length, 1);
  const m = /^127\.0\.0\.1:\$\{NODUS_MOCK_PORT:-(\d+)\}:(\d+)$/.exec(service.ports[0]);
  t.ok(m, `ports entry ${service.ports[0]} is 127.0.0.1:\${NODUS_MOCK_PORT:-host}:container`);
  if (!m) return;
  const [, hostDefault, containerPort] = m;
  t.equal(hostDefault, OPTIONS.port.default, 'by default the host sees the same port as `npm start`');
  t.equal(containerPort, imageEnv[OPTIONS.port.env], 'the container port is the image PORT');
  t.equal(only('EXPOSE'), containerPort, 'and what the image EXPOSEs');
  const request = resolveCli([], { [OPTIONS.port.env]: imageEnv[OPTIONS.port.env] });
  t.equal(request.kind === 'run' && request.config.port, Number(containerPort), 'and what the server listens on');
  t.equal(imageEnv[OPTIONS.host.env], '0.0.0.0', 'on every interface of the container');
});

t.test('the image: non-root, data in the volume, exec-form CMD of the package bin', async (t) => {
  const pkg = JSON.parse(read('package.json'));
  t.same(JSON.parse(only('CMD')), ['node', pkg.bin['nodus-mock']], 'exec form: node gets SIGTERM');
  t.notMatch(only('USER'), /^(root|0)$/);
  t.equal(only('VOLUME'), '/data');
  t.match(imageEnv[OPTIONS.db.env], /^\/data\//);
  t.equal(imageEnv[OPTIONS.logFormat.env], 'json', 'JSON log lines, a terminal attached or not');
  const arg = (name: string) => instructions.find((i) => i.instruction === 'ARG' && i.args.startsWith(`${name}=`))?.args.slice(name.length + 1);
  t.equal(arg('NODE_IMAGE'), 'node:24-bookworm-slim', 'runs on Node 24, the current LTS');
  // better-sqlite3 is compiled in the build stage for that Node's ABI: another major fails to load it.
  t.equal(arg('BUILD_IMAGE'), 'node:24-bookworm', 'built on the same Node major');
  t.same(service.volumes, ['nodus-mock-data:/data', './scenarios:/scenarios:ro']);
  t.same(Object.keys(compose.volumes), ['nodus-mock-data'], 'a named volume');
  t.equal(service.build, '.');
  t.equal(service.restart, 'unless-stopped');
  // What docker-compose 1.29 and Compose v2 both accept (toolchain notes); `version:` is obsolete in v2.
  t.same(Object.keys(compose).sort(), ['services', 'volumes']);
  const portable = ['build', 'image', 'ports', 'environment', 'volumes', 'healthcheck', 'restart'];
  t.same(Object.keys(service).filter((k) => !portable.includes(k)), []);
});

t.test('both health checks run the same probe of /readyz, which answers 200 without a key', async (t) => {
  const probe = (service.healthcheck.test as string[]).slice(1);
  t.equal(service.healthcheck.test[0], 'CMD', 'exec form: no shell in the slim image is assumed');
  const healthcheck = /^(?:--\S+\s+)*CMD\s+(\[.*\])$/.exec(only('HEALTHCHECK'));
  t.ok(healthcheck, 'the Dockerfile HEALTHCHECK is in exec form');
  t.same(JSON.parse(healthcheck![1]), probe, 'the Dockerfile and compose probes are the same');
  t.same(probe.slice(0, 2), ['node', '-e'], 'node itself, no curl');
  t.match(probe[2], "'/readyz'");

  // Asynchronously: the server answering the probe runs in this process.
  const runProbe = (port: string) =>
    new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, probe.slice(1), { env: { PORT: port }, stdio: 'ignore', timeout: 10_000 });
      child.on('error', reject);
      child.on('exit', resolve);
    });
  const s = await startServer(t);
  t.equal((await s.call('GET', '/readyz', { key: null })).status, 200);
  const port = new URL(s.url).port;
  t.equal(await runProbe(port), 0, 'the probe passes against a ready server');
  await s.close();
  t.equal(await runProbe(port), 1, 'and fails when nothing answers');
});

t.test('npm run test:docker skips with one line and exit 0 where no engine is reachable', async (t) => {
  const script = join(packageRoot(), 'scripts', 'test-docker.mjs');
  const env = { ...process.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock' };
  const result = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
  t.equal(result.code, 0);
  t.equal(result.out, 'test:docker: skipped (no Docker engine reachable)\n');
});
