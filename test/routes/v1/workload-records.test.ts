import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { advance, launchRun, legCounting, secondsToFinish } from '../../helpers/rl.js';
import { startInProcess, type TestServer } from '../../helpers/server.js';

const get = (s: TestServer, id: string) => s.call('GET', `/v1/workloads/${id}`);
const micros = (usd: number) => Math.round(usd * 1e6);

t.test('artifacts: a train run\'s checkpoints every 5 steps and after the last; none for an evaluation', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const train = await launchRun(s, legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 7 }));
  const evaluate = await launchRun(s, legCounting({ evaluation_tasks: 4 }));
  const early = await s.call('GET', `/v1/workloads/${train.id}/artifacts`);
  conforms(t, 'GET', '/v1/workloads/{id}/artifacts', early);
  t.same(early.body, { artifacts: [] });

  await advance(s, secondsToFinish(train.preview));
  const res = await s.call('GET', `/v1/workloads/${train.id}/artifacts`);
  conforms(t, 'GET', '/v1/workloads/{id}/artifacts', res);
  const { artifacts } = res.body;
  t.same(artifacts.map((a: any) => [a.sequence, a.manifest.step, a.generation, a.stage_id]), [[1, 5, 1, 'main'], [2, 7, 1, 'main']]);
  t.match(artifacts[0].manifest, { kind: 'checkpoint', trigger: 'training_step', total_steps: 7, files: [{ path: /adapter_model\.safetensors$/ }, {}, {}] });
  const steps = (await s.call('GET', `/v1/workloads/${train.id}/events?after=0`)).body.events.filter((e: any) => e.event_type === 'rl.training_step');
  t.equal(artifacts[1].created_at, steps[6].created_at, 'written when its step ended');
  const w = (await get(s, train.id)).body;
  t.same(w.latest_checkpoint, { manifest_id: artifacts[1].manifest_id, generation: 1, sequence: 2, created_at: artifacts[1].created_at }, 'the workload names its latest checkpoint');
  t.same((await s.call('GET', `/v1/workloads/${evaluate.id}/artifacts`)).body, { artifacts: [] });
  t.equal((await get(s, evaluate.id)).body.latest_checkpoint, null);
});

t.test('ledger: credits add up to spend_usd at every moment; the settlement closes at the end', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  // A custom run of about 2.5 hours spans several billing hours.
  const submitted = await s.call('POST', '/v1/workloads', {
    body: { requirements: { compute_class: 'accelerator', gpu: 'H100', expected_runtime_hours: 2.5 }, source: { image: 'python:3.11-slim', command: ['python', 'train.py'] } },
    headers: { 'idempotency-key': 'ledger-run' },
  });
  const id = submitted.body.id;
  let entries = 0;
  for (const step of [0, 60, 1800, 3600, 4000, 7200, 4 * 3600]) {
    if (step) await advance(s, step);
    const w = (await get(s, id)).body;
    const res = await s.call('GET', `/v1/workloads/${id}/ledger`);
    conforms(t, 'GET', '/v1/workloads/{id}/ledger', res);
    const { entries: rows, settlement } = res.body;
    t.equal(res.body.workload_id, id);
    const credits = rows.filter((e: any) => ['customer_charge', 'platform_fee'].includes(e.entry_type)).reduce((sum: number, e: any) => sum + micros(e.credit_usd), 0);
    t.equal(credits, micros(w.spend_usd), `after ${step} s more (${w.status}): charges ${credits / 1e6} = spend ${w.spend_usd}`);
    t.equal(micros(settlement.balance_usd), micros(w.spend_usd));
    t.ok(rows.every((e: any) => e.correlation_id === settlement.correlation_id && e.currency === 'USD'));
    const terminal = w.status === 'completed';
    t.equal(settlement.status, terminal ? 'closed' : 'open');
    t.equal(settlement.closed_at, terminal ? w.updated_at : null, 'closed at the terminal time');
    t.ok(rows.length >= entries, 'entries are only added');
    entries = rows.length;
  }
  t.ok(entries >= 3, `one charge per billing hour (${entries})`);
});

t.test('routing: one placement per generation; a recovery adds one and supersedes the old', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id, preview } = await launchRun(s, legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 10 }));
  const queued = await s.call('GET', `/v1/workloads/${id}/routing`);
  conforms(t, 'GET', '/v1/workloads/{id}/routing', queued);
  t.same(queued.body, { workload_id: id, placements: [] }, 'no placement before compute is provisioned');

  for (let i = 0; i < 100 && (await get(s, id)).body.stages[0].metric_step < 6; i++) await advance(s, 10);
  const one = await s.call('GET', `/v1/workloads/${id}/routing`);
  t.equal(one.body.placements.length, 1);
  t.match(one.body.placements[0], { generation: 1, stage_id: 'main', running_at: String, boot_ok: true, interrupted_at: null, ended_at: null, outcome: 'active', checkpoints: 1 });

  const recover = await s.call('POST', `/_mock/workloads/${id}/recover`, { body: {} });
  t.equal(recover.status, 200);
  await advance(s, secondsToFinish(preview));
  const res = await s.call('GET', `/v1/workloads/${id}/routing`);
  conforms(t, 'GET', '/v1/workloads/{id}/routing', res);
  const [old, current] = res.body.placements;
  t.equal(res.body.placements.length, 2, 'the recovery added a placement');
  t.same(res.body.placements.map((p: any) => [p.stage_id, p.generation]), [['main', 1], ['main', 2]], 'ordered by stage then generation');
  t.match(old, { outcome: 'interrupted', superseded_by: 2, interrupted_at: String, ended_at: old.interrupted_at, interrupt_trigger: String });
  t.ok(old.recovery_seconds >= 45 && old.recovery_seconds <= 90, 'recovered 45-90 s later');
  t.match(current, { generation: 2, provisioned_at: old.interrupted_at, superseded_by: null, outcome: 'completed', restored_from: /^mf_/, restore_bytes: Number });
  t.ok(current.output_bytes > 0, 'the last placement published the outputs');
  const w = (await get(s, id)).body;
  t.equal(micros(old.actual_cost_usd) + micros(current.actual_cost_usd), micros(w.spend_usd), 'placement costs add up to spend_usd');
});
