import t from '../helpers/tap.js';
import { estimateRun } from '../../server/simulator/estimate.js';
import { simulate, stateAt } from '../../server/simulator/index.js';
import { customSpec, evaluateSpec, lifecycle, specFor, statusAt } from './fixtures.js';

t.test('status, phase and stage progress through an uninterrupted train run', async (t) => {
  const spec = specFor();
  const tl = simulate(spec, []);
  const at = (ms: number) => stateAt(spec, [], ms, tl);
  const phaseStart = (p: string) => lifecycle(tl, 'rl.phase_started').find((e) => e.payload.phase === p)!.atMs;

  const before = at(spec.createdAtMs - 5_000);
  t.same([before.status, before.spendUsd, before.updatedAtMs, before.stage.status], ['accepted', 0, spec.createdAtMs, 'pending'], 'before creation: as accepted');
  t.same(at(spec.createdAtMs).status, 'accepted');
  t.same(at(statusAt(tl, 'planning')!).status, 'planning');
  const reserving = at(statusAt(tl, 'reserving')! + 1);
  t.same([reserving.status, reserving.accruingRateUsdHour, reserving.spendUsd], ['reserving', 0, 0], 'nothing is billed before provisioning');
  const provisioning = at(statusAt(tl, 'provisioning')! + 1);
  t.same([provisioning.status, provisioning.accruingRateUsdHour, provisioning.stage.status], ['provisioning', 2.4, 'pending']);

  const baseline = at(phaseStart('baseline') + 1);
  t.same([baseline.status, baseline.phase, baseline.stage.status], ['running', 'baseline', 'running']);
  const training = at(phaseStart('training') + 200_000);
  t.equal(training.phase, 'training');
  t.ok(training.stage.metric_step! > 0 && training.stage.metric_step! < 20, `step ${training.stage.metric_step}`);
  t.equal(training.stage.metric_total_steps, 20);
  t.equal(training.stage.last_loss, lifecycle(tl, 'rl.training_step')[training.stage.metric_step! - 1].payload.loss);
  t.ok(training.stage.metric_rate! > 0, 'a unit rate once attempts finish');
  t.equal(at(phaseStart('evaluation') + 1).phase, 'evaluation');
  t.equal(at(lifecycle(tl, 'rl.export_started')[0].atMs + 1).phase, 'export');

  const done = at(tl.endAtMs!);
  t.same([done.status, done.terminal, done.phase, done.accruingRateUsdHour, done.stage.status], ['completed', true, null, 0, 'completed']);
  const attempts = tl.items.filter((i) => i.kind === 'rl_event' && i.event.kind === 'task_completed').length;
  t.ok(attempts >= 16 + 160 + 16, 'every planned attempt, retries included');
  t.same([done.stage.completed_units, done.stage.total_units, done.stage.metric_step], [attempts, attempts, 20]);
  t.equal(done.updatedAtMs, tl.endAtMs);
  t.same(at(tl.endAtMs! + 86_400_000), done, 'nothing changes after the end');
});

t.test('spend: monotone, updatedAt follows the items, equals the estimate at completion', async (t) => {
  for (let seed = 0; seed < 30; seed++) {
    for (const spec of [specFor({ seed }), evaluateSpec({ seed }), customSpec({ seed })]) {
      const tl = simulate(spec, []);
      let previous = -1;
      for (let ms = spec.createdAtMs; ms <= tl.endAtMs!; ms += 7_919) {
        const s = stateAt(spec, [], ms, tl);
        if (s.spendUsd < previous) t.fail(`spend fell at ${ms}`);
        if (s.updatedAtMs > ms || s.updatedAtMs < spec.createdAtMs) t.fail('updatedAt is the last item at or before t');
        previous = s.spendUsd;
      }
      const final = stateAt(spec, [], tl.endAtMs!, tl).spendUsd;
      const { computeCostUsd } = estimateRun(spec);
      if (final < computeCostUsd.low || final > computeCostUsd.high) t.fail(`seed ${seed} ${spec.kind}/${spec.mode}: ${final} outside ${JSON.stringify(computeCostUsd)}`);
      const billedMs = tl.endAtMs! - statusAt(tl, 'provisioning')!;
      t.equal(final, Math.round(((spec.usdPerHour * billedMs) / 3_600_000) * 1e6) / 1e6, 'usdPerHour x provisioning-to-end, 6 decimals');
    }
  }
});

t.test('stage of runs without training', async (t) => {
  const spec = evaluateSpec({ evaluationTasks: 10 });
  const tl = simulate(spec, []);
  const done = stateAt(spec, [], tl.endAtMs!, tl);
  const attempts = tl.items.filter((i) => i.kind === 'rl_event' && i.event.kind === 'task_completed').length;
  t.same([done.stage.completed_units, done.stage.total_units, done.stage.metric_step, done.stage.last_loss], [attempts, attempts, undefined, undefined]);
  const custom = customSpec();
  const ctl = simulate(custom, []);
  const mid = stateAt(custom, [], statusAt(ctl, 'running')! + 60_000, ctl);
  t.same([mid.status, mid.phase, mid.stage.status, mid.stage.total_units], ['running', null, 'running', 0]);
});
