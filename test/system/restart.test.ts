import t from '../helpers/tap.js';
import { startCli } from '../helpers/cli.js';
import { advance, drainEvents, launchRun, legCounting, lifecycleEvents, secondsToFinish } from '../helpers/rl.js';
import { call, startServer, tempDbPath, type TestServer } from '../helpers/server.js';

const KEY = 'nk_test_restart';

/** A TestServer-shaped handle on a child process, enough for the rl helpers. */
function remote(url: string): TestServer {
  return { url, key: KEY, call: (m: string, p: string, o?: object) => call(url, m, p, KEY, o) } as unknown as TestServer;
}

/** A run's rows without what depends on ids or wall time. */
async function shape(s: TestServer, id: string) {
  const created = Date.parse((await s.call('GET', `/v1/workloads/${id}`)).body.created_at);
  const rows = (await drainEvents(s, id)).rows.map((r) => {
    const { event_id: _e, ...event } = r.event;
    return { ...event, generation: r.generation, at: Date.parse(r.received_at) - created };
  });
  const lifecycle = (await lifecycleEvents(s, id)).map((e) => ({ type: e.event_type, payload: e.payload, at: Date.parse(e.created_at) - created }));
  return { rows, lifecycle };
}

t.test('kill -9 mid-run and restart: the run continues without gaps or duplicates', async (t) => {
  const config = legCounting({ mode: 'train', evaluation_tasks: 8, training_steps: 6, seed: 11 });
  const db = tempDbPath(t);
  const first = startCli(['--port', '0', '--db', db, '--clock', 'manual']);
  t.teardown(() => first.child.kill('SIGKILL'));
  const a = remote((await first.ready).url);
  const { id, preview } = await launchRun(a, config, 'restart-run');
  await advance(a, preview.estimate.completion_seconds.low / 2);
  const midway = (await drainEvents(a, id)).rows.length;
  t.ok(midway > 0, `some events before the crash (${midway})`);
  first.child.kill('SIGKILL');
  await first.exited;

  const second = startCli(['--port', '0', '--db', db, '--clock', 'manual']);
  t.teardown(() => second.child.kill('SIGKILL'));
  const b = remote((await second.ready).url);
  t.equal((await drainEvents(b, id)).rows.length, midway, 'every acknowledged row survived');
  await advance(b, secondsToFinish(preview));
  t.equal((await b.call('GET', `/v1/workloads/${id}`)).body.status, 'completed');
  const interrupted = await shape(b, id);
  const ids = (await drainEvents(b, id)).rows.map((r) => `${r.generation}/${r.event.event_id}`);
  t.equal(new Set(ids).size, ids.length, 'no duplicate rows');

  const clean = await startServer(t, { clock: 'manual' });
  const c = await launchRun(clean, config);
  await advance(clean, secondsToFinish(c.preview));
  t.same(interrupted, await shape(clean, c.id), 'the same rows as an uninterrupted run with the same seed');
});
