import t from '../helpers/tap.js';
import { estimateRun, nominalPlan } from '../../server/simulator/estimate.js';
import { simulate, type SimSpec } from '../../server/simulator/index.js';
import { checkOrdered, customSpec, evaluateSpec, itemsOf, lifecycle, rlEvents, specFor, statusAt, statuses } from './fixtures.js';

const HAPPY_PATH = ['accepted', 'planning', 'reserving', 'provisioning', 'running', 'completed'];

t.test('a train run: statuses, stage and phases in order', async (t) => {
  const spec = specFor();
  const tl = simulate(spec, []);
  checkOrdered(t, tl, spec);
  t.same(statuses(tl), HAPPY_PATH);
  t.equal(tl.finalStatus, 'completed');
  t.equal(tl.endAtMs, statusAt(tl, 'completed'));
  t.same(tl.ignored, []);
  const planning = statusAt(tl, 'planning')! - spec.createdAtMs;
  t.ok(planning > 0 && planning <= 2000, `planning ${planning} ms after acceptance`);
  t.same(lifecycle(tl, 'workload.status').map((e) => e.payload), HAPPY_PATH.map((s, i) => ({ status: s, previous: i ? HAPPY_PATH[i - 1] : null })));
  t.same(lifecycle(tl, 'rl.phase_started').map((e) => e.payload), [
    { phase: 'baseline', tasks: 16 }, { phase: 'training', tasks: 20 }, { phase: 'evaluation', tasks: 16 },
  ]);
  t.same(lifecycle(tl, 'rl.phase_completed').map((e) => e.payload.phase), ['baseline', 'training', 'evaluation']);
  t.equal(lifecycle(tl, 'stage.started')[0].atMs, statusAt(tl, 'running'));
  t.equal(lifecycle(tl, 'stage.completed')[0].atMs, tl.endAtMs);
  t.same(lifecycle(tl, 'rl.export_completed')[0].payload, { outputs: ['results.json', 'adapter_config.json', 'adapter_model.safetensors'] });
  const exportStart = lifecycle(tl, 'rl.export_started')[0].atMs;
  t.equal(exportStart, lifecycle(tl, 'rl.phase_completed')[2].atMs, 'export follows the final evaluation');

  // Every RL event lies inside its phase's window.
  const started = lifecycle(tl, 'rl.phase_started');
  const completed = lifecycle(tl, 'rl.phase_completed');
  for (let p = 0; p < 3; p++) {
    const phase = started[p].payload.phase;
    const inPhase = rlEvents(tl).filter((i) => i.event.phase === phase);
    t.ok(inPhase.every((i) => i.atMs >= started[p].atMs && i.atMs <= completed[p].atMs), `${phase} events inside the phase`);
  }
  const counts = (phase: string) => rlEvents(tl).filter((i) => i.event.phase === phase && i.event.kind === 'task_completed').length;
  const scoredTasks = (phase: string) => new Set(rlEvents(tl).filter((i) => i.event.phase === phase && i.event.kind === 'task_completed' && i.event.outcome !== 'error').map((i) => i.event.task_id)).size;
  t.equal(scoredTasks('baseline'), 16, 'errored held-out attempts are retried until each task is scored');
  t.equal(scoredTasks('evaluation'), 16);
  t.ok(counts('baseline') + counts('evaluation') > 32, 'the errors stay, as earlier attempts');
  t.equal(counts('training'), 20 * 8);
  t.same(
    completed.map((e) => e.payload.attempts),
    [counts('baseline'), 160, counts('evaluation')],
    'phase_completed counts every attempt',
  );
});

t.test('held-out and training task ids', async (t) => {
  const tl = simulate(specFor({ evaluationTasks: 12 }), []);
  const ids = (phase: string) => [...new Set(rlEvents(tl).filter((i) => i.event.phase === phase).map((i) => i.event.task_id))];
  t.same(ids('baseline').sort(), Array.from({ length: 12 }, (_, i) => `leg_counting/heldout/${String(i).padStart(4, '0')}`));
  t.same(ids('evaluation').sort(), ids('baseline').sort(), 'the same held-out tasks before and after training');
  const train = ids('training');
  t.equal(train.length, 20, 'one training task per step');
  t.ok(train.every((id) => /^leg_counting\/train\/\d{4}$/.test(id)));
  t.same(
    simulate(specFor({ taskset: 'nodus/gsm8k@1.0.0' }), []).items.find((i) => i.kind === 'rl_event' && /^gsm8k\/heldout\/0000$/.test(i.event.task_id))?.kind,
    'rl_event',
    'the prefix comes from the taskset',
  );
});

t.test('evaluate mode: one evaluation phase, results only', async (t) => {
  const spec = evaluateSpec({ evaluationTasks: 24 });
  const tl = simulate(spec, []);
  checkOrdered(t, tl, spec);
  t.same(statuses(tl), HAPPY_PATH);
  t.same(lifecycle(tl, 'rl.phase_started').map((e) => e.payload), [{ phase: 'evaluation', tasks: 24 }]);
  t.ok(rlEvents(tl).length >= 48 && rlEvents(tl).length % 2 === 0, 'a start and a completion per attempt, one attempt at least per task');
  t.equal(lifecycle(tl, 'rl.training_step').length, 0);
  t.equal(lifecycle(tl, 'rl.export_started').length, 0, 'the timing model gives evaluate mode no export time');
  t.same(lifecycle(tl, 'rl.export_completed')[0].payload, { outputs: ['results.json'] });
});

t.test('custom runs: lifecycle only, running for about customRunSeconds', async (t) => {
  const spec = customSpec({ customRunSeconds: 600 });
  const tl = simulate(spec, []);
  checkOrdered(t, tl, spec);
  t.same(statuses(tl), HAPPY_PATH);
  t.equal(rlEvents(tl).length, 0);
  t.equal(itemsOf(tl, 'receipt').length, 0);
  t.equal(lifecycle(tl, 'rl.phase_started').length, 0);
  const running = tl.endAtMs! - statusAt(tl, 'running')!;
  t.ok(running >= 540_000 && running <= 660_000, `ran ${running} ms`);
  t.ok(itemsOf(tl, 'log').length >= 3, 'the runtime logs its command');
});

t.test('durations stay within the estimate over many seeds and configurations', async (t) => {
  const configs: SimSpec[] = [];
  for (let seed = 0; seed < 60; seed++) {
    configs.push(specFor({ seed, evaluationTasks: 4 + (seed % 61), trainingSteps: 1 + (seed % 50) }));
    configs.push(evaluateSpec({ seed, evaluationTasks: 4 + ((seed * 7) % 61), simulation: { eval_concurrency: 1 + (seed % 16) } }));
    configs.push(customSpec({ seed, customRunSeconds: 60 + seed * 97 }));
    configs.push(specFor({ seed, privateGrading: seed % 2 === 0, simulation: { seconds_per_attempt: 2 + (seed % 20), group_size: 1 + (seed % 16) } }));
  }
  let outside = 0;
  for (const spec of configs) {
    const tl = simulate(spec, []);
    const est = estimateRun(spec);
    const completion = (tl.endAtMs! - spec.createdAtMs) / 1000;
    const execution = (tl.endAtMs! - statusAt(tl, 'running')!) / 1000;
    const within = (v: number, r: { low: number; high: number }) => v >= r.low && v <= r.high;
    if (!within(completion, est.completionSeconds) || !within(execution, est.executionSeconds)) {
      outside++;
      t.fail(`seed ${spec.seed} ${spec.kind}/${spec.mode}: completion ${completion} in ${JSON.stringify(est.completionSeconds)}, execution ${execution} in ${JSON.stringify(est.executionSeconds)}`);
    }
  }
  t.equal(outside, 0, `${configs.length} runs within their estimate`);
});

t.test('phase lengths follow the nominal plan within the jitter', async (t) => {
  for (let seed = 0; seed < 40; seed++) {
    const spec = specFor({ seed });
    const nominal = nominalPlan(spec);
    const tl = simulate(spec, []);
    const started = lifecycle(tl, 'rl.phase_started');
    const completed = lifecycle(tl, 'rl.phase_completed');
    const lengths = [0, 1, 2].map((p) => completed[p].atMs - started[p].atMs);
    const nominals = [nominal.baselineMs, nominal.trainingMs, nominal.evaluationMs];
    for (let p = 0; p < 3; p++) {
      const ratio = lengths[p] / nominals[p];
      if (ratio < 0.899 || ratio > 1.101) t.fail(`seed ${seed} phase ${p}: ${ratio}`);
    }
  }
  t.pass('every phase within ±10% of nominal');
});
