import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { advance, launchRun, legCounting } from '../helpers/rl.js';
import { startInProcess, tempDbPath } from '../helpers/server.js';

const docs = readFileSync(join(packageRoot(), 'docs', 'webhooks.md'), 'utf8');
const block = (lang: string) => new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(docs)![1];
const python = spawnSync('python3', ['--version']).status === 0;
const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const receivers = [
  { name: 'Python', lang: 'python', file: 'receiver.py', command: 'python3', args: ['-u'], skip: !python && 'no python3 here' },
  { name: 'Node', lang: 'js', file: 'receiver.mjs', command: process.execPath, args: [], skip: false },
] as const;

for (const r of receivers) {
  t.test(`the ${r.name} receiver of docs/webhooks.md verifies what the mock sends, and refuses a wrong signature`, { skip: r.skip }, async (t) => {
    const port = await freePort();
    const source = block(r.lang)
      .replace('SECRET = "whsec_..."', 'import os; SECRET = os.environ["WEBHOOK_SECRET"]')
      .replaceAll('8765', String(port));
    const path = join(tempDbPath(t), '..', r.file);
    writeFileSync(path, source);
    const child = spawn(r.command, [...r.args, path], { env: { ...process.env, WEBHOOK_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
    t.teardown(() => child.kill());
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.stdout.setEncoding('utf8');
    /** Once the receiver has printed `line`: what it prints may reach this process after its answer. */
    const printed = (line: string) => new Promise<void>((resolve, reject) => {
      const look = () => {
        if (!out.includes(`${line}\n`)) return;
        child.stdout.off('data', look);
        resolve();
      };
      child.stdout.on('data', look);
      child.once('exit', (code) => reject(new Error(`the receiver exited (${code}) before it printed ${line}: ${err}`)));
      look();
    });
    child.stdout.on('data', (d) => (out += d));
    // The receiver says when it listens: the deliveries below are its from the first attempt.
    await printed(`listening on http://127.0.0.1:${port}/hook`);
    const s = await startInProcess(t, { clock: 'manual' });
    const url = `http://127.0.0.1:${port}/hook`;
    await s.call('PUT', '/v1/webhooks', { body: { url, secret: SECRET } });
    const { id } = await launchRun(s, legCounting());
    await s.call('POST', '/_mock/webhooks/flush');
    const [first] = (await s.call('GET', '/_mock/webhooks/deliveries')).body.deliveries;
    t.equal(first.state, 'delivered', `the first attempt delivered: ${JSON.stringify(first.attempts.at(-1))} ${err}`);
    await advance(s, 7200);
    await s.call('POST', '/_mock/webhooks/flush');
    const deliveries = (await s.call('GET', '/_mock/webhooks/deliveries')).body.deliveries;
    t.same(deliveries.map((d: any) => d.attempts.at(-1).status_code), deliveries.map(() => 204));
    await printed(`workload.completed ${id} completed`);
    t.same(out.trim().split('\n').filter((l) => l.startsWith('workload.')).map((l) => l.split(' ')[0]), deliveries.map((d: any) => d.type));

    await s.call('PUT', '/v1/webhooks', { body: { url, secret: `whsec_${Buffer.alloc(32, 4).toString('base64')}` } });
    await launchRun(s, legCounting());
    await s.call('POST', '/_mock/webhooks/flush');
    const [refused] = (await s.call('GET', '/_mock/webhooks/deliveries?state=pending')).body.deliveries;
    t.match(refused.attempts[0], { status_code: 401, error: 'the receiver answered 401' }, 'signed with another secret: refused');
  });
}
