import t from '../../helpers/tap.js';
import { summarise } from '../../../server/domain/evidence/summary.js';
import type { EvidenceCounters, RLReport } from '../../../store/rl-events.js';
import { conforms } from '../../helpers/contract.js';
import { attempt, ingest, phaseEvents, submitCustom, summary } from '../../helpers/evidence.js';
import { startInProcess } from '../../helpers/server.js';

const clean: EvidenceCounters = { count: 0, bytes: 0, dropped: 0, truncated: false };

/** Stored reports as the store returns them, in row order, from event-like tuples. */
function reports(events: Array<Partial<RLReport> & Pick<RLReport, 'phase' | 'taskId' | 'kind'>>): RLReport[] {
  return events.map((e, i) => ({ seq: i + 1, generation: 1, receivedAtMs: 0, attempt: 1, outcome: null, reward: null, ...e }));
}

/** Attempt 1 of n tasks of a phase, completed: the first `passed` pass, the rest fail. */
const scored = (phase: string, n: number, passed: number, tasks = (i: number) => `t${i}`) =>
  reports(Array.from({ length: n }, (_, i) => ({ phase, taskId: tasks(i), kind: 'task_completed', outcome: i < passed ? 'passed' : 'failed', reward: i < passed ? 1 : 0 })));

const compare = (baseline: RLReport[], evaluation: RLReport[], counters = clean) =>
  summarise('wl_x', [...baseline, ...evaluation].map((r, i) => ({ ...r, seq: i + 1 })), counters).comparison;

t.test('the wire sample: 51/64 then 56/64 is comparable, +7.8125 pp at 1.5625 pp resolution', async (t) => {
  const training = reports([{ phase: 'training', taskId: 'train-0', kind: 'task_started' }]);
  const rows = [...scored('baseline', 64, 51), ...training, ...scored('evaluation', 64, 56)].map((r, i) => ({ ...r, seq: i + 1 }));
  const s = summarise('wl_x', rows, clean);
  t.match(s.phases.baseline, { attempts: 64, scored: 64, passed: 51, failed: 13, errors: 0, in_progress: 0, pass_rate: 0.796875, reward_samples: 64 });
  t.match(s.phases.training, { attempts: 0, scored: 0, in_progress: 1, pass_rate: null, mean_reward: null, reward_samples: 0 });
  t.match(s.phases.evaluation, { passed: 56, pass_rate: 0.875 });
  t.same(s.comparison, {
    baseline_pass_rate: 0.796875, evaluation_pass_rate: 0.875, change_pp: 7.8125, resolution_pp: 1.5625,
    comparable: true, measurable: true, reason: 'comparable', message: '',
  });
});

t.test('every reason, with its flags; the message is empty exactly when comparable', async (t) => {
  const cases: Array<[string, ReturnType<typeof compare>, boolean, boolean]> = [
    ['comparable', compare(scored('baseline', 8, 2), scored('evaluation', 8, 6)), true, true],
    ['smallest_step', compare(scored('baseline', 8, 3), scored('evaluation', 8, 4)), true, true],
    ['smallest_step', compare(scored('baseline', 8, 3), scored('evaluation', 8, 3)), true, true],
    ['different_attempt_counts', compare(scored('baseline', 8, 2), scored('evaluation', 7, 6)), false, false],
    ['different_tasks', compare(scored('baseline', 8, 2), scored('evaluation', 8, 6, (i) => `other${i}`)), false, false],
    ['all_passed', compare(scored('baseline', 4, 4), scored('evaluation', 4, 4)), true, false],
    ['none_passed', compare(scored('baseline', 4, 0), scored('evaluation', 4, 0)), true, false],
    ['incomplete_events', compare(scored('baseline', 8, 2), scored('evaluation', 8, 6), { ...clean, dropped: 1, truncated: true }), false, false],
    ['incomplete_events', compare(scored('baseline', 4, 4), scored('evaluation', 4, 4), { ...clean, truncated: true }), false, false],
  ];
  for (const [reason, c, comparable, measurable] of cases) {
    t.match(c, { reason, comparable, measurable }, reason);
    t.equal(c!.message === '', reason === 'comparable', `${reason}: message "${c!.message}"`);
  }
  t.match(compare(scored('baseline', 8, 3), scored('evaluation', 8, 4)), { change_pp: 12.5, resolution_pp: 12.5 }, 'one attempt is the smallest step');
  t.match(compare(scored('baseline', 4, 2), scored('evaluation', 8, 2)), { resolution_pp: 12.5, change_pp: -25 }, 'resolution from the larger phase');
});

t.test('each attempt counts once, by its latest report; errors are finished but unscored', async (t) => {
  const rows = reports([
    { phase: 'evaluation', taskId: 'a', kind: 'task_started' },
    { phase: 'evaluation', taskId: 'a', kind: 'task_completed', outcome: 'failed', reward: 0 },
    // Recovery: attempt a reported again in generation 2, started before it completes there.
    { phase: 'evaluation', taskId: 'a', kind: 'task_started', generation: 2 },
    { phase: 'evaluation', taskId: 'b', kind: 'task_completed', outcome: 'passed', reward: 0.5 },
    { phase: 'evaluation', taskId: 'b', kind: 'task_started' }, // stored after its completion
    { phase: 'evaluation', taskId: 'c', kind: 'task_completed', outcome: 'error' },
    { phase: 'evaluation', taskId: 'b', attempt: 2, kind: 'task_completed', outcome: 'failed', reward: -1 },
  ]);
  const s = summarise('wl_x', rows, clean);
  t.same(s.phases.evaluation, {
    attempts: 3, scored: 2, passed: 1, failed: 1, errors: 1, in_progress: 1,
    pass_rate: 0.5, mean_reward: -0.25, reward_samples: 2,
  });
  const later = summarise('wl_x', [...rows, { ...rows[1], seq: 99, generation: 2, outcome: 'passed', reward: 1 }], clean);
  t.match(later.phases.evaluation, { attempts: 4, passed: 2, in_progress: 0 }, 'the generation-2 completion replaces the old report');
  t.equal(s.comparison, null, 'no baseline: no comparison');
});

t.test('over HTTP: comparison null until both phases scored, then the contract shape', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  const empty = await summary(s, id);
  t.equal(empty.status, 200);
  conforms(t, 'GET', '/v1/workloads/{id}/rl-summary', empty);
  t.match(empty.body, { schema_version: 1, workload_id: id, comparison: null, dropped_events: 0, truncated: false });

  await ingest(s, id, [...phaseEvents('baseline', 4, 1), attempt('evaluation', 't0', 1, 'passed')[0]]);
  const half = await summary(s, id);
  t.equal(half.body.comparison, null, 'nothing scored in evaluation yet');
  t.match(half.body.phases.evaluation, { attempts: 0, in_progress: 1 });
  await ingest(s, id, phaseEvents('evaluation', 4, 4));
  const both = await summary(s, id);
  conforms(t, 'GET', '/v1/workloads/{id}/rl-summary', both);
  t.match(both.body.phases.evaluation, { attempts: 4, in_progress: 0 });
  t.match(both.body.comparison, { baseline_pass_rate: 0.25, evaluation_pass_rate: 1, change_pp: 75, resolution_pp: 25, reason: 'comparable' });
});
