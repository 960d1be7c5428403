import t from '../../helpers/tap.js';
import { copyWorkload, launchRun, legCounting, manyWorkloads, secondsToFinish } from '../../helpers/rl.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';
import { freshKey, startServer, type TestServer } from '../../helpers/server.js';

/*
 * POST /_mock/clock/advance {seconds} over real HTTP while other requests run: it materialises a
 * slice of workloads per transaction, the event loop turning between slices (docs/control-api.md,
 * the clock, says what a read sees meanwhile).
 */

const SETTINGS = { clock: 'manual' } as const;
const WORKLOADS = 1000;

const unsettled = (s: TestServer, tenantId: string) => s.store.workloads.unsettled(tenantId).length;
const eventCount = (s: TestServer, id: string) => (s.store.db.prepare('SELECT count(*) AS n FROM rl_events WHERE workload_id = ?').get(id) as { n: number }).n;
/** Each workload's outbox, in the order its deliveries were enqueued: `type@atMs,...`. */
function outboxes(s: TestServer, tenantId: string): Map<string, string> {
  const rows = s.store.db.prepare('SELECT workload_id AS id, type, created_at_ms AS atMs FROM webhook_deliveries WHERE tenant_id = ? ORDER BY seq').all(tenantId) as { id: string; type: string; atMs: number }[];
  const byWorkload = new Map<string, string[]>();
  for (const { id, type, atMs } of rows) byWorkload.set(id, [...byWorkload.get(id) ?? [], `${type}@${atMs}`]);
  return new Map([...byWorkload].map(([id, sent]) => [id, sent.join()]));
}
const nowOf = async (s: TestServer, key?: string) => Date.parse((await s.call('GET', '/_mock/clock', { key })).body.now);

for (const [label, body] of [['{seconds}', { seconds: 60 }], ['{until: "idle"}', { until: 'idle' }]] as const) {
t.test(`while one tenant advances 1,000 workloads by ${label}, another tenant is answered, and a read of the advancing tenant sees the new now`, async (t) => {
  const s = await startServer(t, SETTINGS);
  const receiver = await startReceiver(t);
  t.equal((await s.call('PUT', '/v1/webhooks', { body: { url: receiver.url } })).status, 200);
  const { tenantId, id, copies } = await manyWorkloads(s, WORKLOADS);
  const other = freshKey();
  const { id: otherRun } = await launchRun(s, legCounting({ seed: 8 }), 'other-run', other);
  const before = await nowOf(s);

  const log: string[] = [];
  let answered: number | undefined;
  const advanced = s.call('POST', '/_mock/clock/advance', { body }).then((res) => {
    log.push('advanced');
    answered = Date.parse(res.body.now);
    return res;
  });
  // The copy stored last is the last a slice reaches: a read of it is ahead of the advance.
  const last = copies.at(-1)!;
  const midReads: { unsettled: number; now: number; status: string; events: number }[] = [];
  const otherStatuses = new Set<number>();
  while (answered === undefined) {
    otherStatuses.add((await s.call('GET', `/v1/workloads/${otherRun}`, { key: other })).status);
    log.push('other');
    const left = unsettled(s, tenantId);
    if (left > 0) t.ok(s.store.workloads.hasUnsettled(tenantId), 'the realtime webhook pass finds the tenant while workloads are unsettled');
    const now = await nowOf(s);
    const read = await s.call('GET', `/v1/workloads/${last}`);
    if (answered === undefined) midReads.push({ unsettled: left, now, status: read.body.status, events: eventCount(s, last) });
  }
  t.equal((await advanced).status, 200);
  if ('seconds' in body) t.equal(answered, before + 60_000, 'the advance answers the new now');
  // The copies ended before now by their timelines: idle held already; their events fall due in slices.
  else t.equal(answered, before, 'until idle answers at once: every run has ended by now');
  t.same([...otherStatuses], [200]);
  t.ok(log.indexOf('advanced') >= 5, `${log.indexOf('advanced')} reads of another tenant answered before the advance`);

  const during = midReads.filter((r) => r.unsettled > 0);
  t.ok(during.length >= 3, `${during.length} reads of the advancing tenant while it still had workloads to materialise`);
  t.ok(during.every((r) => r.now === answered), 'each saw the clock at the new now already');
  t.ok(during.every((r) => r.status === 'completed' && r.events === eventCount(s, id)), 'and the workload it read materialised to it, every event of the run stored');

  t.equal(unsettled(s, tenantId), 0, 'once answered, every workload is materialised to the new now');
  t.notOk(s.store.workloads.hasUnsettled(tenantId), 'and the realtime webhook pass passes the tenant by');
  // Copies of one run, launched at one time: the same events and the same status changes, at the same times.
  const sent = outboxes(s, tenantId);
  t.match(sent.get(id), /^workload\.accepted@\d+,workload\.planning@.*,workload\.completed@\d+$/, 'the run announces each status it passed, in order');
  const wrong = copies.filter((copy) => eventCount(s, copy) !== eventCount(s, id) || sent.get(copy) !== sent.get(id));
  t.same(wrong, [], 'every workload, whether the advance or a read materialised it, has its events once and its status changes enqueued once each, in order');
});
}

t.test('a snapshot restored while an advance is under way wins: its clock and rows stay as restored', async (t) => {
  const s = await startServer(t, SETTINGS);
  const { id, preview } = await launchRun(s, legCounting({ evaluation_tasks: 4, seed: 4 }));
  const tenantId = (await s.call('GET', '/v1/me')).body.tenant as string;
  const document = (await s.call('GET', '/_mock/snapshot')).body;
  copyWorkload(s, s.store.workloads.get(tenantId, id)!, WORKLOADS);
  // Launched after the copies, so the restored rows are stored after all of them, where the
  // advance's later slices look.
  await launchRun(s, legCounting({ seed: 8 }), 'other-run', freshKey());

  const log: string[] = [];
  const advanced = s.call('POST', '/_mock/clock/advance', { body: { seconds: secondsToFinish(preview) } }).then((res) => (log.push('advanced'), res));
  // Once the advance has committed a slice or two, not all.
  while (unsettled(s, tenantId) > WORKLOADS - 100) await new Promise((resolve) => setImmediate(resolve));
  const restored = await s.call('PUT', '/_mock/snapshot', { body: document });
  log.push('restored');
  t.equal(restored.status, 200, restored.text);
  t.equal((await advanced).status, 200);
  t.same(log, ['restored', 'advanced'], 'the restore landed while the advance was materialising');

  t.equal(await nowOf(s), document.tenant.clock.now_ms, 'the clock is the snapshot\'s');
  const after = (await s.call('GET', '/_mock/snapshot')).body;
  for (const table of ['workloads', 'workload_events', 'rl_events', 'workload_logs', 'grading_receipts']) {
    t.same(after.tenant.tables[table], document.tenant.tables[table], `${table}: as restored, nothing materialised past the snapshot's now`);
  }
});

t.test('two advances of one tenant at once each answer their own now; every workload is materialised once to the later', async (t) => {
  const s = await startServer(t, SETTINGS);
  const { tenantId, id, copies } = await manyWorkloads(s, 300);
  const before = await nowOf(s);
  const answers = await Promise.all([30, 60].map(async (seconds) => (await s.call('POST', '/_mock/clock/advance', { body: { seconds } })).body.now as string));
  const [first, second] = answers.map(Date.parse).sort((a, b) => a - b);
  t.ok(first === before + 30_000 || first === before + 60_000, 'the first to move answers its own move');
  t.equal(second, before + 90_000, 'the second moved on from there');
  t.equal(await nowOf(s), before + 90_000);
  t.equal(unsettled(s, tenantId), 0, 'every workload materialised');
  t.same(copies.filter((copy) => eventCount(s, copy) !== eventCount(s, id)), [], 'no event twice, none missing');
});
