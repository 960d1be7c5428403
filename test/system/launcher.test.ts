import { spawn, type ChildProcess } from 'node:child_process';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { MAIN } from '../helpers/cli.js';
import { tempDbPath, type Teardown } from '../helpers/server.js';

/** Starts `command` in a process group of its own, so teardown can kill whatever it left behind. */
function launch(t: Teardown, command: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { cwd: packageRoot(), env: { ...env, LOG_LEVEL: 'silent' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the whole group is gone already
    }
  });
  let out = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code} before listening: ${out}`)));
  });
  return { child, url };
}

const answers = (url: string) => fetch(`${url}/readyz`).then(() => true, () => false);

const exited = (child: ChildProcess) => new Promise((resolve) => (child.exitCode === null ? child.on('exit', resolve) : resolve(child.exitCode)));

/** Resolves when the last process writing to the launcher's stdout (the server, when npm and the shell are gone) has exited. */
const outputClosed = (child: ChildProcess) => new Promise((resolve) => (child.stdout!.closed ? resolve(true) : child.stdout!.once('close', resolve)));

// One test: the server npm started is the witness that a launcher's exit has been noticed, the
// moment to look at the server started by hand, instead of a sleep.
t.test('`npm start` killed with SIGTERM takes the server with it; one started by hand outlives its shell', async (t) => {
  const env = { ...process.env };
  delete env.npm_lifecycle_event;
  const shell = launch(t, 'sh', ['-c', `"${process.execPath}" "${MAIN}" --port 0 --db "${tempDbPath(t)}" & wait`], env);
  const npm = launch(t, 'npm', ['start', '--', '--port', '0', '--db', tempDbPath(t)], process.env);
  const [byHand, url] = await Promise.all([shell.url, npm.url]);
  t.ok(await answers(url), 'serving');
  shell.child.kill('SIGTERM');
  await exited(shell.child);
  npm.child.kill('SIGTERM');
  await exited(npm.child);
  await outputClosed(npm.child);
  t.notOk(await answers(url), 'the server stopped once npm was gone');
  t.ok(await answers(byHand), 'still serving: only an npm launcher is followed');
});
