import t from '../helpers/tap.js';
import { startCli } from '../helpers/cli.js';
import { call, tempDbPath } from '../helpers/server.js';
import { legCounting } from '../helpers/rl.js';
import { startReceiver, verifies } from '../helpers/webhook-receiver.js';

const KEY = 'nk_test_webhooks_crash';

t.test('deliveries committed before a kill -9 are sent after the restart, in order', async (t) => {
  const db = tempDbPath(t);
  const receiver = await startReceiver(t);
  // The receiver holds the first request unanswered, and the timeout outlasts any wait for it: the
  // first attempt is on its way when the process dies.
  receiver.answer = () => undefined;
  const first = startCli(['--port', '0', '--db', db, '--clock', 'manual', '--webhook-timeout-ms', '120000']);
  t.teardown(() => first.child.kill('SIGKILL'));
  const { url } = await first.ready;
  const { secret } = (await call(url, 'PUT', '/v1/webhooks', KEY, { body: { url: receiver.url } })).body;
  const preview = (await call(url, 'POST', '/v1/rl-runs/preview', KEY, { body: legCounting() })).body;
  const launch = await call(url, 'POST', '/v1/rl-runs', KEY, {
    body: { ...preview.configuration, review_token: preview.review_token },
    headers: { 'idempotency-key': 'crash-webhooks' },
  });
  t.equal(launch.status, 202);
  // One advance commits the whole run's status changes, and their deliveries with them.
  t.equal((await call(url, 'POST', '/_mock/clock/advance', KEY, { body: { seconds: 7200 } })).status, 200);
  const [cut] = await receiver.waitFor(1);
  first.child.kill('SIGKILL');
  await first.exited;
  t.equal(receiver.received.length, 1, 'one delivery at a time: the others waited behind the unanswered one');
  receiver.answer = (_req, res) => res.writeHead(204).end();

  const second = startCli(['--port', '0', '--db', db, '--clock', 'manual']);
  t.teardown(() => second.child.kill('SIGKILL'));
  const { url: url2 } = await second.ready;
  const workload = (await call(url2, 'GET', `/v1/workloads/${launch.body.id}`, KEY)).body;
  t.equal(workload.status, 'completed');
  // No flush, no read of deliveries: the worker sends what it finds pending at start.
  const got = (await receiver.waitFor(7)).slice(1);
  t.equal(got[0].headers['webhook-id'], cut.headers['webhook-id'], 'the unanswered delivery is sent again under its id: at least once');
  t.same(got.map((r) => r.event.type), [
    'workload.accepted', 'workload.planning', 'workload.reserving', 'workload.provisioning', 'workload.running', 'workload.completed',
  ]);
  for (const r of got) t.ok(verifies(secret, r), `${r.event.type} is signed with the secret from before the crash`);
  t.same((await call(url2, 'POST', '/_mock/webhooks/flush', KEY)).body, { due: 0, pending: 0 });
  const deliveries = (await call(url2, 'GET', '/_mock/webhooks/deliveries', KEY)).body.deliveries;
  t.same(deliveries.map((d: any) => [d.state, d.attempts.length]), got.map(() => ['delivered', 1]),
    'the attempt the kill cut short left no record; the one after the restart did');
  t.same(deliveries.map((d: any) => d.id), got.map((r) => r.headers['webhook-id']));
  second.child.kill('SIGTERM');
  await second.exited;
});
