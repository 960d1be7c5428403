import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import t from '../helpers/tap.js';
import { packageVersion } from '../../server/boot/package-info.js';
import { MAIN, startCli } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/server.js';

t.test('--port 0 picks a port and prints the URL, an export line and the inspector link', async (t) => {
  const db = tempDbPath(t);
  // Asked for, readable lines go even to a pipe.
  const cli = startCli(['--port', '0', '--db', db, '--log-format', 'pretty'], { LOG_LEVEL: 'info' });
  t.teardown(() => cli.child.kill('SIGKILL'));
  const { url, out } = await cli.ready;
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.match(out(), `export NODUS_BASE_URL=${url} NODUS_API_KEY=nk_test_local`);
  const me = await fetch(`${url}/v1/me`, { headers: { authorization: 'Bearer nk_test_local' } });
  t.equal(me.status, 200, 'the printed key works');
  t.ok(existsSync(db), 'the database file was created');
  t.match(out(), `inspector: ${url}/_mock/ui/#key=nk_test_local`);
  t.equal((await fetch(`${url}/_mock/ui/`)).status, 200, 'the printed inspector link opens the page');
  t.match(out(), /INFO.*configuration/, 'the start-up log line, readable');
  t.notMatch(out(), /^\{"level"/m, 'no JSON line');
});

t.test('SIGTERM closes cleanly: exit 0 and the WAL checkpointed away', async (t) => {
  const db = tempDbPath(t);
  const cli = startCli(['--port', '0', '--db', db], { LOG_LEVEL: 'info' });
  const { url, out } = await cli.ready;
  t.match(out(), /^\{"level":30,.*"msg":"configuration"\}$/m, 'a pipe gets JSON lines');
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

t.test('a --db whose folder cannot be made exits 2 with one line, without spinning', async (t) => {
  // Node's recursive mkdir loops forever under /proc; the timeout turns that into a failure.
  const r = spawnSync(process.execPath, [MAIN, '--port', '0', '--db', '/proc/nope/x.db'], { env: { ...process.env, LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 20_000 });
  t.equal(r.signal, null, 'ended by itself');
  t.equal(r.status, 2);
  t.equal(r.stderr.trim().split('\n').length, 1);
  t.match(r.stderr, /^nodus-mock: cannot create \/proc\/nope for the database \/proc\/nope\/x\.db/);
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
  const { openDatabase } = await import('../../store/db.js');
  const handle = openDatabase(db);
  handle.prepare("INSERT INTO schema_migrations VALUES (9999, 'future', 'x')").run();
  handle.close();
  const r = spawnSync(process.execPath, [MAIN, '--port', '0', '--db', db], { env: { ...process.env, LOG_LEVEL: 'silent' }, encoding: 'utf8' });
  t.equal(r.status, 1);
  t.match(r.stderr, /newer than this server/);
});
