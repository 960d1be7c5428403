import type { RLComparison } from '../../openapi/rl-evidence.js';

/**
 * The before/after comparison of a train run, the one function behind both rl-summary's
 * `comparison` (from the stored reports) and results.json's (from the run's plan), so the file a
 * user downloads and the summary the console shows cannot disagree.
 */

/** The latest word on one attempt of a phase. */
interface ComparedAttempt {
  taskId: string;
  outcome: 'passed' | 'failed' | 'error' | string;
}

/** What was lost between the runtime and the store; a run's own results lose nothing. */
interface EvidenceLoss {
  dropped: number;
  truncated: boolean;
}

const pp = (x: number) => `${Number(x.toFixed(4))} pp`;

function scoring(attempts: readonly ComparedAttempt[]) {
  let passed = 0;
  let scored = 0;
  const tasks = new Set<string>();
  for (const a of attempts) {
    if (a.outcome !== 'passed' && a.outcome !== 'failed') continue;
    scored++;
    if (a.outcome === 'passed') passed++;
    tasks.add(a.taskId);
  }
  return { passed, scored, tasks };
}

/**
 * Why a before/after comparison can or cannot be read, first reason that applies:
 * incomplete_events (something was dropped or truncated: neither comparable nor measurable);
 * different_attempt_counts / different_tasks (not comparable, so not measurable);
 * all_passed / none_passed in both phases (comparable, not measurable: nothing could move);
 * smallest_step (comparable and measurable, but the change is at most one attempt, i.e. zero or
 * one flipped outcome, which one attempt of noise explains); otherwise comparable.
 * Null until both phases have a scored attempt.
 */
export function compareRuns(baseline: readonly ComparedAttempt[], evaluation: readonly ComparedAttempt[], loss: EvidenceLoss): RLComparison | null {
  const [b, e] = [scoring(baseline), scoring(evaluation)];
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

  if (loss.dropped > 0 || loss.truncated) {
    const lost = loss.dropped > 0 ? `${loss.dropped} task events were dropped` : 'the event store is truncated';
    return verdict('incomplete_events', false, false, `${lost}, so attempts may be missing from either phase; the comparison cannot be trusted`);
  }
  if (b.scored !== e.scored) {
    return verdict('different_attempt_counts', false, false, `baseline scored ${b.scored} attempts and evaluation ${e.scored}; a comparison needs the same attempts in both phases`);
  }
  const onlyBaseline = [...b.tasks].filter((task) => !e.tasks.has(task)).length;
  const onlyEvaluation = [...e.tasks].filter((task) => !b.tasks.has(task)).length;
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
