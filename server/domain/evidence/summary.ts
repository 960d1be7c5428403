import { compareRuns } from '../../simulator/comparison.js';
import type { RLPhaseSummary, RLSummary } from '../../../openapi/rl-evidence.js';
import type { EvidenceCounters, RLReport } from '../../../store/rl-events.js';

/**
 * GET /v1/workloads/{id}/rl-summary as a pure function of the stored reports, so the same reports
 * always give the same summary. No I/O: the evidence service reads the rows and counters in one snapshot and calls this.
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

function tally(latest: readonly RLReport[]): RLPhaseSummary {
  const t: RLPhaseSummary = {
    attempts: 0, scored: 0, passed: 0, failed: 0, errors: 0, in_progress: 0,
    pass_rate: null, mean_reward: null, reward_samples: 0,
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

/** The finished attempts of a phase, as the comparison reads them. */
const finished = (latest: readonly RLReport[], phase: string) =>
  latest.filter((r) => r.phase === phase && r.kind === 'task_completed').map((r) => ({ taskId: r.taskId, outcome: r.outcome ?? 'error' }));

export function summarise(workloadId: string, reports: readonly RLReport[], counters: EvidenceCounters): RLSummary {
  const latest = latestReports(reports);
  const of = (phase: string) => tally(latest.filter((r) => r.phase === phase));
  return {
    schema_version: 1,
    workload_id: workloadId,
    phases: { baseline: of('baseline'), training: of('training'), evaluation: of('evaluation') },
    comparison: compareRuns(finished(latest, 'baseline'), finished(latest, 'evaluation'), counters),
    dropped_events: counters.dropped,
    truncated: counters.truncated,
  };
}
