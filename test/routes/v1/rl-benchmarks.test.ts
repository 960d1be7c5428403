import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { advance, launchRun, secondsToFinish } from '../../helpers/rl.js';
import { startInProcess } from '../../helpers/server.js';

const BENCHMARKS = ['arc-easy', 'arc-challenge', 'hellaswag', 'mmlu'];

t.test('the benchmark recipes are evaluate-only, and each runs to completed with evidence and results', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const list = await s.call('GET', '/v1/rl-recipes');
  for (const id of BENCHMARKS) {
    const recipe = list.body.recipes.find((r: any) => r.id === id);
    t.ok(recipe, `${id} is listed`);
    t.same(recipe.modes, ['evaluate'], `${id}: evaluate only`);
    t.equal(recipe.available, true);
  }
  const runs = [];
  for (const id of BENCHMARKS) runs.push({ recipe: id, ...(await launchRun(s, { recipe_id: id, recipe_version: '1.0.0', mode: 'evaluate', evaluation_tasks: 32 })) });
  await advance(s, Math.max(...runs.map((r) => secondsToFinish(r.preview))));
  for (const run of runs) {
    const workload = await s.call('GET', `/v1/workloads/${run.id}`);
    t.equal(workload.body.status, 'completed', `${run.id} completed`);
    const summary = await s.call('GET', `/v1/workloads/${run.id}/rl-summary`);
    conforms(t, 'GET', '/v1/workloads/{id}/rl-summary', summary);
    t.equal(summary.body.phases.evaluation.scored, 32, `${run.id}: every held-out question scored once`);
    t.equal(summary.body.comparison, null, 'no baseline, so nothing to compare');
    const rate = summary.body.phases.evaluation.pass_rate;
    t.ok(rate > 0.2 && rate < 1, `${run.id}: a plausible pass rate (${rate})`);
    const results = JSON.parse((await s.call('GET', `/v1/workloads/${run.id}/outputs/results.json`)).text);
    t.equal(results.evaluation.pass_rate, rate, 'results.json agrees with the summary');
    t.same((await s.call('GET', `/v1/workloads/${run.id}/outputs`)).body.outputs.map((o: any) => o.name), ['results.json']);
    const events = await s.call('GET', `/v1/workloads/${run.id}/rl-events?limit=5`);
    t.ok(events.body.events.length > 0, 'task evidence');
  }
});
