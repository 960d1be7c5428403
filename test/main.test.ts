import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { packageRoot, packageVersion } from '../server/package-info.js';
import { tempDbPath } from './helpers/server.js';

const MAIN = join(packageRoot(), 'dist', 'server', 'main.js');

/** Starts the real CLI and resolves with its printed base URL. */
function startCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise<{ url: string; out: () => string }>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m && out.includes('NODUS_API_KEY=')) resolve({ url: m[1], out: () => out });
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, ready, exited };
}

t.test('--port 0 picks a port and prints the URL and an export line', async (t) => {
  const db = tempDbPath(t);
  const cli = startCli(['--port', '0', '--db', db]);
  t.teardown(() => cli.child.kill('SIGKILL'));
  const { url, out } = await cli.ready;
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.match(out(), `export NODUS_BASE_URL=${url} NODUS_API_KEY=nk_test_local`);
  const me = await fetch(`${url}/v1/me`, { headers: { authorization: 'Bearer nk_test_local' } });
  t.equal(me.status, 200, 'the printed key works');
  t.ok(existsSync(db), 'the database file was created');
});

t.test('SIGTERM closes cleanly: exit 0 and the WAL checkpointed away', async (t) => {
  const db = tempDbPath(t);
  const cli = startCli(['--port', '0', '--db', db]);
  const { url } = await cli.ready;
  await fetch(`${url}/v1/me`, { headers: { authorization: 'Bearer nk_test_sigterm' } });
  cli.child.kill('SIGTERM');
  t.equal(await cli.exited, 0);
  t.notOk(existsSync(`${db}-wal`), 'the database was closed');
});

t.test('invalid configuration exits 2 with one line on stderr', async (t) => {
  for (const [args, env] of [[['--port', 'x'], {}], [[], { NODUS_MOCK_CLOCK: 'never' }], [['--what'], {}]] as const) {
    const r = spawnSync(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
    t.equal(r.status, 2, `${args.join(' ')} ${JSON.stringify(env)}`);
    t.equal(r.stderr.trim().split('\n').length, 1);
    t.match(r.stderr, /^nodus-mock: /);
  }
});

t.test('--help and --version exit 0', async (t) => {
  const help = spawnSync(process.execPath, [MAIN, '--help'], { encoding: 'utf8' });
  t.equal(help.status, 0);
  t.match(help.stdout, '--db');
  const version = spawnSync(process.execPath, [MAIN, '--version'], { encoding: 'utf8' });
  t.equal(version.status, 0);
  t.equal(version.stdout, `${packageVersion()}\n`, "package.json's version");
});

t.test('a database from a newer schema stops the start with exit 1', async (t) => {
  const db = tempDbPath(t);
  const { openDatabase } = await import('../store/db.js');
  const handle = openDatabase(db);
  handle.prepare("INSERT INTO schema_migrations VALUES (9999, 'future', 'x')").run();
  handle.close();
  const r = spawnSync(process.execPath, [MAIN, '--port', '0', '--db', db], { env: { ...process.env, LOG_LEVEL: 'silent' }, encoding: 'utf8' });
  t.equal(r.status, 1);
  t.match(r.stderr, /newer than this server/);
});
