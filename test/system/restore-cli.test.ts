import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import t from 'tap';
import { MAIN, startCli } from '../helpers/cli.js';
import { advance, launchRun, legCounting } from '../helpers/rl.js';
import { startServer, tempDbPath } from '../helpers/server.js';

const asLocal = { headers: { authorization: 'Bearer nk_test_local' } };

t.test('--restore FILE opens a snapshot in the tenant of the printed key, so its inspector link shows it', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  const { id } = await launchRun(s, legCounting({ seed: 9 }));
  await advance(s, 90);
  const file = join(dirname(tempDbPath(t)), 'failed.json');
  writeFileSync(file, (await s.call('GET', '/_mock/snapshot')).text);

  const cli = startCli(['--port', '0', '--db', tempDbPath(t), '--restore', file]);
  t.teardown(() => cli.child.kill('SIGKILL'));
  const { url, out } = await cli.ready;
  t.match(out(), `inspector: ${url}/_mock/ui/#key=nk_test_local`);
  const restored = await (await fetch(`${url}/v1/workloads/${id}`, asLocal)).json() as Record<string, unknown>;
  const original = (await s.call('GET', `/v1/workloads/${id}`)).body;
  t.same({ ...restored, tenant_id: null }, { ...original, tenant_id: null }, 'the run as the original tenant shows it');
  t.same(await (await fetch(`${url}/_mock/clock`, asLocal)).json(), (await s.call('GET', '/_mock/clock')).body, 'and its clock');
});

t.test('a --restore file it cannot restore stops the start with exit 2 and the path of the problem', async (t) => {
  const dir = dirname(tempDbPath(t));
  const fifo = join(dir, 'fifo');
  spawnSync('mkfifo', [fifo]);
  const big = join(dir, 'big.json');
  writeFileSync(big, `{"format": "${'x'.repeat(2000)}"}`);
  const cases: [string, string, RegExp, string[]?][] = [
    ['missing.json', '', /missing\.json: cannot read/],
    ['not-json.json', '{"format"', /not-json\.json: not valid JSON/],
    ['other.json', JSON.stringify({ format: 'other', version: 1 }), /other\.json: file\.format: /],
    // Files that never end or never start: each would hold the start (or fill the memory) forever.
    ['/dev/zero', '', /\/dev\/zero: cannot read: a device, not a regular file/],
    [fifo, '', /fifo: cannot read: a FIFO, not a regular file/],
    [dir, '', /: cannot read: a directory, not a regular file/],
    [big, '', /big\.json: 2014 bytes is over --max-snapshot-bytes \(1000\)/, ['--max-snapshot-bytes', '1000']],
  ];
  for (const [name, text, message, flags = []] of cases) {
    const file = resolve(dir, name);
    if (text) writeFileSync(file, text);
    const r = spawnSync(process.execPath, [MAIN, '--port', '0', '--db', join(dir, 'x.db'), '--restore', file, ...flags], { env: { ...process.env, LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 20_000 });
    t.equal(r.status, 2, name);
    t.equal(r.stderr.trim().split('\n').length, 1, name);
    t.match(r.stderr, message, name);
  }
});
