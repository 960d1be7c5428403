import t from '../helpers/tap.js';
import { passProbability, trainingProgress } from '../../server/simulator/learning.js';
import { simulate } from '../../server/simulator/index.js';
import { lifecycle, passRate, specFor, SIMULATION } from './fixtures.js';

t.test('evaluation usually beats baseline, but not always', async (t) => {
  let better = 0;
  const runs = 200;
  for (let seed = 0; seed < runs; seed++) {
    const tl = simulate(specFor({ seed, privateGrading: false }), []);
    if (passRate(tl, 'evaluation') > passRate(tl, 'baseline')) better++;
  }
  t.ok(better >= runs * 0.65, `evaluation beat baseline in ${better}/${runs} runs`);
  t.ok(better < runs, 'but not in every run');
});

t.test('pass rates sit around the recipe numbers', async (t) => {
  const base: number[] = [];
  const trained: number[] = [];
  for (let seed = 0; seed < 60; seed++) {
    const tl = simulate(specFor({ seed, evaluationTasks: 64, trainingSteps: 30, privateGrading: false }), []);
    base.push(passRate(tl, 'baseline'));
    trained.push(passRate(tl, 'evaluation'));
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  t.ok(Math.abs(mean(base) - SIMULATION.base_pass_rate) < 0.06, `baseline mean ${mean(base)}`);
  t.ok(Math.abs(mean(trained) - SIMULATION.trained_pass_rate) < 0.06, `evaluation mean ${mean(trained)}`);
});

t.test('training lifts pass probability monotonically and saturates', async (t) => {
  const spec = specFor();
  for (const task of ['leg_counting/heldout/0000', 'leg_counting/heldout/0001', 'leg_counting/train/0042']) {
    let previous = passProbability(spec, task, 0);
    for (let steps = 1; steps <= 60; steps++) {
      const p = passProbability(spec, task, steps);
      if (p < previous) t.fail(`${task}: p fell at step ${steps}`);
      previous = p;
    }
  }
  t.ok(trainingProgress(20) > 0.95, 'near the trained rate after 20 steps');
  t.ok(trainingProgress(50) - trainingProgress(40) < 0.01, 'saturated by 40');
  t.equal(trainingProgress(0), 0);
});

t.test('every training step reports reward, loss and KL', async (t) => {
  for (const steps of [1, 20, 50]) {
    const tl = simulate(specFor({ trainingSteps: steps, seed: steps }), []);
    const reports = lifecycle(tl, 'rl.training_step');
    t.same(reports.map((r) => r.payload.step), Array.from({ length: steps }, (_, i) => i + 1), `${steps} steps reported in order`);
    for (const { payload } of reports) {
      t.same(Object.keys(payload).sort(), ['kl', 'loss', 'reward_mean', 'step', 'total_steps']);
      t.equal(payload.total_steps, steps);
      const { reward_mean, loss, kl } = payload as Record<string, number>;
      if (!(reward_mean >= 0 && reward_mean <= 1 && loss > 0 && loss < 1 && kl > 0 && kl < 0.1)) t.fail(`implausible ${JSON.stringify(payload)}`);
    }
  }
  // Trends over long runs, first ten steps against the last ten: loss falls, KL and reward rise.
  const first: Array<Record<string, number>> = [];
  const last: Array<Record<string, number>> = [];
  for (let seed = 0; seed < 20; seed++) {
    const reports = lifecycle(simulate(specFor({ seed, trainingSteps: 50, privateGrading: false }), []), 'rl.training_step').map((r) => r.payload as Record<string, number>);
    first.push(...reports.slice(0, 10));
    last.push(...reports.slice(-10));
  }
  const avg = (xs: Array<Record<string, number>>, k: string) => xs.reduce((s, x) => s + x[k], 0) / xs.length;
  t.ok(avg(last, 'loss') < avg(first, 'loss') * 0.7, `loss falls (${avg(first, 'loss')} -> ${avg(last, 'loss')})`);
  t.ok(avg(last, 'kl') > avg(first, 'kl') * 2, `KL rises (${avg(first, 'kl')} -> ${avg(last, 'kl')})`);
  t.ok(avg(last, 'reward_mean') > avg(first, 'reward_mean') + 0.05, `reward rises (${avg(first, 'reward_mean')} -> ${avg(last, 'reward_mean')})`);
});
