import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
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

/** True once `url` stops answering, false if it still answers after `ms`. */
async function goneWithin(url: string, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(100)) if (!(await answers(url))) return true;
  return false;
}

const exited = (child: ChildProcess) => new Promise((resolve) => (child.exitCode === null ? child.on('exit', resolve) : resolve(child.exitCode)));

t.test('`npm start` killed with SIGTERM takes the server with it', async (t) => {
  const npm = launch(t, 'npm', ['start', '--', '--port', '0', '--db', tempDbPath(t)], process.env);
  const url = await npm.url;
  t.ok(await answers(url), 'serving');
  npm.child.kill('SIGTERM');
  await exited(npm.child);
  t.ok(await goneWithin(url, 15_000), 'the server stopped once npm was gone');
});

t.test('a server started by hand outlives the shell that started it in the background', async (t) => {
  const env = { ...process.env };
  delete env.npm_lifecycle_event;
  const shell = launch(t, 'sh', ['-c', `"${process.execPath}" "${MAIN}" --port 0 --db "${tempDbPath(t)}" & wait`], env);
  const url = await shell.url;
  shell.child.kill('SIGTERM');
  await exited(shell.child);
  await sleep(1_000);
  t.ok(await answers(url), 'still serving: only an npm launcher is followed');
});
