import t from '../helpers/tap.js';
import { simulate, simulatedOutputs, type SimSpec } from '../../server/simulator/index.js';
import { compareRuns } from '../../server/simulator/comparison.js';
import { MAX_ATTEMPTS } from '../../server/simulator/plan.js';
import { events, specFor } from './fixtures.js';

const comparisonOf = (spec: SimSpec) => JSON.parse(simulatedOutputs(spec, [])[0].content.toString('utf8')).comparison;

/** The first seed in 0..49 whose run gives `reason`, or undefined. */
function seedFor(reason: string, overrides: Parameters<typeof specFor>[0]): number | undefined {
  for (let seed = 0; seed < 50; seed++) if (comparisonOf(specFor({ ...overrides, seed, trainingSteps: 5 })).reason === reason) return seed;
  return undefined;
}

t.test('an errored held-out attempt is retried as the task\'s next attempt', async (t) => {
  const tl = simulate(specFor({ evaluationTasks: 32, simulation: { error_rate: 0.3 } }), []);
  const completed = events(tl).filter((e) => e.kind === 'task_completed' && e.phase !== 'training');
  for (const phase of ['baseline', 'evaluation']) {
    const mine = completed.filter((e) => e.phase === phase);
    const byTask = new Map<string, typeof mine>();
    for (const e of mine) byTask.set(e.task_id, [...(byTask.get(e.task_id) ?? []), e]);
    t.equal(byTask.size, 32, `${phase}: every task attempted`);
    for (const [task, attempts] of byTask) {
      t.same(attempts.map((a) => a.attempt), attempts.map((_, i) => i + 1), `${task}: attempts numbered 1, 2, …`);
      t.ok(attempts.length <= MAX_ATTEMPTS, 'bounded');
      t.ok(attempts.slice(0, -1).every((a) => a.outcome === 'error'), 'only an error is retried');
    }
    t.ok(mine.some((e) => e.outcome === 'error'), `${phase}: the errors stay as earlier attempts`);
  }
});

t.test('each reason of the comparison is reachable from the simulation block', async (t) => {
  t.ok(seedFor('comparable', {}) !== undefined, 'comparable: the default');
  t.ok(seedFor('smallest_step', {}) !== undefined, 'smallest_step: a default run whose change is one attempt');
  const unrecoverable = { simulation: { error_rate: 0.2, unrecoverable_error_rate: 1 } };
  t.ok(seedFor('different_attempt_counts', unrecoverable) !== undefined, 'different_attempt_counts: unrecoverable errors');
  t.ok(seedFor('different_tasks', unrecoverable) !== undefined, 'different_tasks: as many unrecoverable errors in each phase, on other tasks');
  t.equal(comparisonOf(specFor({ simulation: { error_rate: 0, base_pass_rate: 0.99999, trained_pass_rate: 0.99999 } })).reason, 'all_passed');
  t.equal(comparisonOf(specFor({ simulation: { error_rate: 0, base_pass_rate: 0.00001, trained_pass_rate: 0.00001 } })).reason, 'none_passed');
  // A run's own file lost nothing; only the stored evidence can be incomplete (see /_mock drop-events).
  t.equal(compareRuns([{ taskId: 'a', outcome: 'passed' }], [{ taskId: 'a', outcome: 'passed' }], { dropped: 1, truncated: false })!.reason, 'incomplete_events');
});

t.test('without unrecoverable errors every default run scores each held-out task once per phase', async (t) => {
  for (let seed = 0; seed < 30; seed++) {
    const c = comparisonOf(specFor({ seed, trainingSteps: 5, simulation: { error_rate: 0.1 } }));
    t.ok(c.comparable, `seed ${seed}: ${c.reason}`);
  }
});
