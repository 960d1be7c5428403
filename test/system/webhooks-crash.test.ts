import t from 'tap';
import { startCli } from '../helpers/cli.js';
import { call, tempDbPath } from '../helpers/server.js';
import { legCounting } from '../helpers/rl.js';
import { startReceiver, verifies } from '../helpers/webhook-receiver.js';

const KEY = 'nk_test_webhooks_crash';

t.test('deliveries committed before a kill -9 are sent after the restart, in order', async (t) => {
  const db = tempDbPath(t);
  const receiver = await startReceiver(t);
  // The timeout outlasts the stall below: the first attempt is on its way when the process dies.
  const first = startCli(['--port', '0', '--db', db, '--clock', 'manual', '--webhook-timeout-ms', '120000']);
  t.teardown(() => first.child.kill('SIGKILL'));
  const { url } = await first.ready;
  const { secret } = (await call(url, 'PUT', '/v1/webhooks', KEY, { body: { url: receiver.url } })).body;
  await call(url, 'POST', '/_mock/faults', KEY, { body: { path: '/webhook/*', action: { type: 'delay', ms: 60_000 } } });
  const preview = (await call(url, 'POST', '/v1/rl-runs/preview', KEY, { body: legCounting() })).body;
  const launch = await call(url, 'POST', '/v1/rl-runs', KEY, {
    body: { ...preview.configuration, review_token: preview.review_token },
    headers: { 'idempotency-key': 'crash-webhooks' },
  });
  t.equal(launch.status, 202);
  // One advance commits the whole run's status changes, and their deliveries with them.
  t.equal((await call(url, 'POST', '/_mock/clock/advance', KEY, { body: { seconds: 7200 } })).status, 200);
  for (;;) {
    const [rule] = (await call(url, 'GET', '/_mock/faults', KEY)).body.faults;
    if (rule.applied === 1) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  first.child.kill('SIGKILL');
  await first.exited;
  t.equal(receiver.received.length, 0, 'nothing was sent before the kill');

  const second = startCli(['--port', '0', '--db', db, '--clock', 'manual']);
  t.teardown(() => second.child.kill('SIGKILL'));
  const { url: url2 } = await second.ready;
  const workload = (await call(url2, 'GET', `/v1/workloads/${launch.body.id}`, KEY)).body;
  t.equal(workload.status, 'completed');
  // No flush, no read of deliveries: the worker sends what it finds pending at start.
  const got = await receiver.waitFor(6);
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
