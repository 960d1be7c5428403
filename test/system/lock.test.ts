// One server per database file, with real processes: a second one exits 2 naming the file and
// the holder's PID; once the holder is gone, however it went, the next start succeeds.
import { spawn } from 'node:child_process';
import t from '../helpers/tap.js';
import { MAIN, startCli } from '../helpers/cli.js';
import { call, startInProcess, tempDbPath } from '../helpers/server.js';

/** Runs the CLI to its exit; answers the code and stderr. */
function runToExit(args: string[]): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, err })));
}

// The timeout is the bound on a second server that would wait for the lock instead of exiting,
// rather than a measured duration.
t.test('a second server on a held database exits 2, naming the file and the holder', { timeout: 30_000 }, async (t) => {
  const db = tempDbPath(t);
  const first = startCli(['--port', '0', '--db', db]);
  t.teardown(() => first.child.kill('SIGKILL'));
  const { url } = await first.ready;

  const second = await runToExit(['--port', '0', '--db', db]);
  t.equal(second.code, 2, 'exit 2, a configuration mistake');
  t.match(second.err, db, 'names the file');
  t.match(second.err, `PID ${first.child.pid}`, "names the holder's PID");
  t.equal(second.err.trim().split('\n').length, 1, 'one line');
  t.equal((await call(url, 'GET', '/readyz', null)).status, 200, 'the holder serves on');

  first.child.kill('SIGKILL');
  await first.exited;
  const afterKill = startCli(['--port', '0', '--db', db]);
  t.teardown(() => afterKill.child.kill('SIGKILL'));
  const restarted = await afterKill.ready;
  t.equal((await call(restarted.url, 'GET', '/readyz', null)).status, 200, 'after kill -9 the next start succeeds');

  afterKill.child.kill('SIGTERM');
  t.equal(await afterKill.exited, 0, 'a clean stop');
  const afterStop = startCli(['--port', '0', '--db', db]);
  t.teardown(() => afterStop.child.kill('SIGKILL'));
  await afterStop.ready;
  t.pass('after a clean stop the next start succeeds');
});

t.test('in one process too, and not for :memory:', async (t) => {
  const db = tempDbPath(t);
  const s = await startInProcess(t, { db });
  await t.rejects(startInProcess(t, { db }), { name: 'DatabaseInUseError', message: new RegExp(`in use by another nodus-mock process \\(PID ${process.pid}`) });
  t.equal((await s.call('GET', '/v1/me')).status, 200, 'the holder is untouched');
  // Enough commits for the checkpoint thread to start: it opens the database, not the lock.
  for (let i = 0; i < 70; i++) await s.call('POST', '/_mock/clock/advance', { body: { seconds: 1 } });
  t.equal((await s.call('GET', '/readyz')).status, 200);
  await s.close();
  const again = await startInProcess(t, { db });
  t.equal((await again.call('GET', '/v1/me')).status, 200, 'closed, the file is free');

  await startInProcess(t, { db: ':memory:' });
  await startInProcess(t, { db: ':memory:' });
  t.pass('two servers on :memory: each have their own');
});
