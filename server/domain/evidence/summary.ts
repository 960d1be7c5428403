import type { RLComparison, RLPhaseSummary, RLSummary } from '../../../openapi/rl-evidence.js';
import type { EvidenceCounters, RLReport } from '../../../store/rl-events.js';

/**
 * GET /v1/workloads/{id}/rl-summary as a pure function of the stored reports (wire-contract.md
 * 2.10 and 4.6). No I/O: the evidence service reads the rows and counters in one snapshot and calls this.
 */

type AttemptReport = Pick<RLReport, 'seq' | 'generation' | 'phase' | 'taskId' | 'attempt' | 'kind'>;

const laterThan = (a: AttemptReport, b: AttemptReport) =>
  a.generation !== b.generation
    ? a.generation > b.generation
    : a.kind !== b.kind
      ? a.kind === 'task_completed'
      : a.seq > b.seq;

/**
 * The latest report of every attempt, an attempt being (phase, task, attempt) as the SDK emitter
 * derives its event ids: stages and generations do not make a new attempt. Latest means from the
 * highest generation (recovery re-reports an attempt there); within a generation a completion
 * outranks a start whatever order they were stored in, and otherwise the later row wins.
 */
export function latestReports<R extends AttemptReport>(reports: readonly R[]): R[] {
  const latest = new Map<string, R>();
  for (const r of reports) {
    const key = `${r.phase}\n${r.taskId}\n${r.attempt}`;
    const seen = latest.get(key);
    if (!seen || laterThan(r, seen)) latest.set(key, r);
  }
  return [...latest.values()];
}

interface PhaseTally extends RLPhaseSummary {
  /** Tasks of the scored attempts: the comparison needs the same set in both phases. */
  scoredTasks: Set<string>;
}

function tally(latest: readonly RLReport[]): PhaseTally {
  const t: PhaseTally = {
    attempts: 0, scored: 0, passed: 0, failed: 0, errors: 0, in_progress: 0,
    pass_rate: null, mean_reward: null, reward_samples: 0, scoredTasks: new Set(),
  };
  let rewardSum = 0;
  for (const r of latest) {
    if (r.kind !== 'task_completed') {
      t.in_progress++;
      continue;
    }
    t.attempts++;
    if (r.outcome === 'passed') t.passed++;
    else if (r.outcome === 'failed') t.failed++;
    else t.errors++;
    if (r.outcome === 'passed' || r.outcome === 'failed') t.scoredTasks.add(r.taskId);
    if (r.reward !== null) {
      t.reward_samples++;
      rewardSum += r.reward;
    }
  }
  t.scored = t.passed + t.failed;
  t.pass_rate = t.scored ? t.passed / t.scored : null;
  t.mean_reward = t.reward_samples ? rewardSum / t.reward_samples : null;
  return t;
}

const publicTally = ({ scoredTasks: _tasks, ...summary }: PhaseTally): RLPhaseSummary => summary;

const pp = (x: number) => `${Number(x.toFixed(4))} pp`;

/**
 * Why a before/after comparison can or cannot be read, first reason that applies:
 * incomplete_events (something was dropped or truncated: neither comparable nor measurable);
 * different_attempt_counts / different_tasks (not comparable, so not measurable);
 * all_passed / none_passed in both phases (comparable, not measurable: nothing could move);
 * smallest_step (comparable and measurable, but the change is at most one attempt, i.e. zero or
 * one flipped outcome, which one attempt of noise explains); otherwise comparable.
 */
function compare(b: PhaseTally, e: PhaseTally, counters: EvidenceCounters): RLComparison | null {
  if (b.scored === 0 || e.scored === 0) return null;
  const [baselineRate, evaluationRate] = [b.passed / b.scored, e.passed / e.scored];
  const base = {
    baseline_pass_rate: baselineRate,
    evaluation_pass_rate: evaluationRate,
    change_pp: (evaluationRate - baselineRate) * 100,
    resolution_pp: 100 / Math.max(b.scored, e.scored),
  };
  const verdict = (reason: RLComparison['reason'], comparable: boolean, measurable: boolean, message: string): RLComparison =>
    ({ ...base, comparable, measurable, reason, message });

  if (counters.dropped > 0 || counters.truncated) {
    const lost = counters.dropped > 0 ? `${counters.dropped} task events were dropped` : 'the event store is truncated';
    return verdict('incomplete_events', false, false, `${lost}, so attempts may be missing from either phase; the comparison cannot be trusted`);
  }
  if (b.scored !== e.scored) {
    return verdict('different_attempt_counts', false, false, `baseline scored ${b.scored} attempts and evaluation ${e.scored}; a comparison needs the same attempts in both phases`);
  }
  const onlyBaseline = [...b.scoredTasks].filter((task) => !e.scoredTasks.has(task)).length;
  const onlyEvaluation = [...e.scoredTasks].filter((task) => !b.scoredTasks.has(task)).length;
  if (onlyBaseline + onlyEvaluation > 0) {
    return verdict('different_tasks', false, false, `baseline and evaluation scored different tasks (${onlyBaseline} only in baseline, ${onlyEvaluation} only in evaluation)`);
  }
  if (b.passed === b.scored && e.passed === e.scored) {
    return verdict('all_passed', true, false, 'every scored attempt passed in both phases: there was no room to measure a change');
  }
  if (b.passed === 0 && e.passed === 0) {
    return verdict('none_passed', true, false, 'no scored attempt passed in either phase: there was nothing to measure a change from');
  }
  // Equal attempt counts make the change a whole number of attempts; count them, not floats.
  if (Math.abs(e.passed - b.passed) <= 1) {
    return verdict('smallest_step', true, true, `the change (${pp(base.change_pp)}) is at most one attempt (${pp(base.resolution_pp)}); one attempt of noise explains it`);
  }
  return verdict('comparable', true, true, '');
}

export function summarise(workloadId: string, reports: readonly RLReport[], counters: EvidenceCounters): RLSummary {
  const latest = latestReports(reports);
  const of = (phase: string) => tally(latest.filter((r) => r.phase === phase));
  const [baseline, training, evaluation] = [of('baseline'), of('training'), of('evaluation')];
  return {
    schema_version: 1,
    workload_id: workloadId,
    phases: { baseline: publicTally(baseline), training: publicTally(training), evaluation: publicTally(evaluation) },
    comparison: compare(baseline, evaluation, counters),
    dropped_events: counters.dropped,
    truncated: counters.truncated,
  };
}
