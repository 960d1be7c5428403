import t from '../../helpers/tap.js';
import { loadCatalog } from '../../../server/domain/catalog/index.js';
import { advance, launchRun, secondsToFinish } from '../../helpers/rl.js';
import { startInProcess, type TestServer } from '../../helpers/server.js';

/** A finished run's rl-summary comparison and results.json comparison. */
async function comparisons(s: TestServer, id: string) {
  const summary = await s.call('GET', `/v1/workloads/${id}/rl-summary`);
  const results = JSON.parse((await s.call('GET', `/v1/workloads/${id}/outputs/results.json`)).text);
  return { summary: summary.body.comparison, results: results.comparison };
}

t.test('default train runs are comparable, and results.json carries the summary\'s comparison', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const trainRecipes = loadCatalog().recipes.filter((r) => r.available && r.modes.includes('train'));
  t.equal(trainRecipes.length, 3, 'the three built-in train recipes');
  const runs: Array<{ label: string; id: string }> = [];
  let longest = 0;
  for (const recipe of trainRecipes) {
    for (let seed = 0; seed <= 5; seed++) {
      const { id, preview } = await launchRun(s, { recipe_id: recipe.id, recipe_version: recipe.version, mode: 'train', training_steps: 5, seed });
      runs.push({ label: `${recipe.id} seed ${seed}`, id });
      longest = Math.max(longest, secondsToFinish(preview));
    }
  }
  await advance(s, longest);
  const reasons: Record<string, number> = {};
  let comparable = 0;
  for (const run of runs) {
    const c = await comparisons(s, run.id);
    t.same(c.results, c.summary, `${run.label}: results.json and rl-summary agree on every field`);
    reasons[c.summary.reason] = (reasons[c.summary.reason] ?? 0) + 1;
    // Comparable, or the truth that nothing could move.
    if (c.summary.comparable) comparable++;
  }
  t.ok(comparable >= 17, `${comparable} of 18 default train runs comparable (${JSON.stringify(reasons)})`);
});
