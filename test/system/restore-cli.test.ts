import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
  const cases: [string, string, RegExp][] = [
    ['missing.json', '', /missing\.json: cannot read/],
    ['not-json.json', '{"format"', /not-json\.json: not valid JSON/],
    ['other.json', JSON.stringify({ format: 'other', version: 1 }), /other\.json: file\.format: /],
  ];
  for (const [name, text, message] of cases) {
    const file = join(dir, name);
    if (text) writeFileSync(file, text);
    const r = spawnSync(process.execPath, [MAIN, '--port', '0', '--db', join(dir, 'x.db'), '--restore', file], { env: { ...process.env, LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 20_000 });
    t.equal(r.status, 2, name);
    t.equal(r.stderr.trim().split('\n').length, 1, name);
    t.match(r.stderr, message, name);
  }
});
