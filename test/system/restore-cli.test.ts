import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import t from '../helpers/tap.js';
import { MAIN, startCli } from '../helpers/cli.js';
import { advance, launchRun, legCounting } from '../helpers/rl.js';
import { freshKey, startServer, tempDbPath } from '../helpers/server.js';

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
  // Another key's tenant than the snapshot's: a copy, with ids of its own, which the link names.
  const copy = /inspector: \S+\/_mock\/ui\/#key=nk_test_local&workload=(wl_\w+)\n/.exec(out())?.[1];
  t.ok(copy, out());
  const restored = await (await fetch(`${url}/v1/workloads/${copy}`, asLocal)).json() as Record<string, unknown>;
  const original = (await s.call('GET', `/v1/workloads/${id}`)).body;
  t.same({ ...restored, id: null, tenant_id: null }, { ...original, id: null, tenant_id: null }, 'the run as the original tenant shows it');
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

t.test('--restore FILE --restore-key KEY opens it in that key\'s tenant and prints its link to the newest run', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  await launchRun(s, legCounting({ seed: 9 }));
  const { id: newest } = await launchRun(s, legCounting({ seed: 10 }));
  await advance(s, 90);
  const file = join(dirname(tempDbPath(t)), 'failed.json');
  writeFileSync(file, (await s.call('GET', '/_mock/snapshot')).text);
  const original = (await s.call('GET', `/v1/workloads/${newest}`)).body;

  // The key the snapshot was taken with: the same tenant, so the same ids, and the link opens the run.
  const same = startCli(['--port', '0', '--db', tempDbPath(t), '--restore', file, '--restore-key', s.key]);
  t.teardown(() => same.child.kill('SIGKILL'));
  const ready = await same.ready;
  t.match(ready.out(), `inspector: ${ready.url}/_mock/ui/#key=${s.key}&workload=${newest}\n`);
  t.match(ready.out(), `NODUS_API_KEY=${s.key}`);
  const restored = await (await fetch(`${ready.url}/v1/workloads/${newest}`, { headers: { authorization: `Bearer ${s.key}` } })).json();
  t.same(restored, original, 'the run as the original tenant shows it, ids and tenant id included');

  // Another key: a fork, its ids its own, and the link names the copy of the newest run.
  const other = freshKey();
  const forked = startCli(['--port', '0', '--db', tempDbPath(t), '--restore', file], { NODUS_MOCK_RESTORE_KEY: other });
  t.teardown(() => forked.child.kill('SIGKILL'));
  const copy = await forked.ready;
  const link = new RegExp(`inspector: ${copy.url.replaceAll('.', '\\.')}/_mock/ui/#key=${other}&workload=(wl_[0-9A-Za-z]{20})\n`).exec(copy.out());
  t.ok(link, copy.out());
  t.not(link?.[1], newest, 'a copy\'s own id');
  const shown = await (await fetch(`${copy.url}/v1/workloads/${link?.[1]}`, { headers: { authorization: `Bearer ${other}` } })).json() as Record<string, unknown>;
  t.same({ ...shown, id: null, tenant_id: null }, { ...original, id: null, tenant_id: null }, 'the newest run, as the original shows it but for its ids');
});

t.test('a --restore-key the server would not accept stops the start with exit 2', async (t) => {
  const dir = dirname(tempDbPath(t));
  const file = join(dir, 'any.json');
  writeFileSync(file, '{}');
  const cases: [string[], RegExp][] = [
    [['--restore-key', 'nk_test_x'], /--restore-key .*give a snapshot file too/],
    [['--restore', file, '--restore-key', 'sk_live_x'], /--restore-key .*start with nk_test_/],
    [['--restore', file, '--keys', 'k1,k2', '--restore-key', 'k3'], /--restore-key .*one of --keys/],
  ];
  for (const [args, message] of cases) {
    const r = spawnSync(process.execPath, [MAIN, '--port', '0', '--db', join(dir, 'x.db'), ...args], { env: { ...process.env, LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 20_000 });
    t.equal(r.status, 2, args.join(' '));
    t.match(r.stderr, message, args.join(' '));
  }
});
