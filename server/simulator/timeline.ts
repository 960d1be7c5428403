import { rlEventId } from './event-ids.js';
import { gradingPlanSha256, pendingReceipt, settledReceipt } from './grading.js';
import { playTimeline } from './interventions.js';
import { logText } from './logs.js';
import { LORA, outputNames } from './outputs.js';
import { planRun, tally, type PlannedAttempt, type RunPlan } from './plan.js';
import type { Draft, Intervention, SimRLEvent, SimSpec, Timeline, WorkloadStatus } from './types.js';

function startedEvent(spec: SimSpec, a: PlannedAttempt): SimRLEvent {
  return { event_id: rlEventId(spec.workloadId, a.taskId, a.attempt, a.phase, 'task_started'), phase: a.phase, task_id: a.taskId, attempt: a.attempt, kind: 'task_started' };
}

function completedEvent(spec: SimSpec, a: PlannedAttempt): SimRLEvent {
  const event: SimRLEvent = {
    event_id: rlEventId(spec.workloadId, a.taskId, a.attempt, a.phase, 'task_completed'),
    phase: a.phase,
    task_id: a.taskId,
    attempt: a.attempt,
    kind: 'task_completed',
    outcome: a.outcome,
  };
  if (a.reward !== undefined) event.reward = a.reward;
  event.duration_ms = a.endMs - a.startMs;
  if (a.message !== undefined) event.message = a.message;
  if (spec.includeTraces && a.trace) {
    event.input = a.trace.input;
    event.output = a.trace.output;
    event.verifier = a.trace.verifier;
  }
  return event;
}

function baseDrafts(spec: SimSpec, plan: RunPlan): Draft[] {
  const drafts: Draft[] = [];
  const status = (at: number, s: WorkloadStatus) => drafts.push({ at, kind: 'status', status: s });
  const lifecycle = (at: number, eventType: string, payload: Record<string, unknown>) => drafts.push({ at, kind: 'lifecycle', eventType, payload });
  const log = (at: number, text: string) => drafts.push({ at, kind: 'log', text });

  status(0, 'accepted');
  status(plan.planningAtMs, 'planning');
  status(plan.reservingAtMs, 'reserving');
  status(plan.provisioningAtMs, 'provisioning');
  status(plan.runningAtMs, 'running');
  lifecycle(plan.runningAtMs, 'stage.started', { stage_id: spec.stageId });
  log(plan.runningAtMs, logText.stageStarted(spec));

  if (spec.kind === 'custom') {
    const length = plan.endMs - plan.runningAtMs;
    log(plan.runningAtMs, logText.customStarted());
    for (const quarter of [1, 2, 3]) {
      const elapsed = Math.round((length * quarter) / 4);
      if (elapsed >= 1000) log(plan.runningAtMs + elapsed, logText.customProgress(Math.round(elapsed / 1000)));
    }
    log(plan.endMs, logText.customExited());
  } else {
    const train = spec.mode === 'train';
    log(plan.runningAtMs, logText.recipe(spec));
    log(plan.runningAtMs, logText.modelLoaded(spec, train ? LORA : null));
    const rates: Array<number | null> = [];
    const planSha = spec.privateGrading ? gradingPlanSha256(spec, 1) : '';
    for (const phase of plan.phases) {
      lifecycle(phase.startMs, 'rl.phase_started', { phase: phase.phase, tasks: phase.tasks });
      log(phase.startMs, logText.phaseStarted(spec, phase.phase, phase.tasks));
      for (const a of phase.attempts) {
        drafts.push({ at: a.startMs, kind: 'rl_event', event: startedEvent(spec, a) });
        drafts.push({ at: a.endMs, kind: 'rl_event', event: completedEvent(spec, a) });
        if (a.grading) {
          const pending = pendingReceipt(spec, planSha, a, a.trace?.output ?? '');
          drafts.push({ at: a.endMs, kind: 'receipt', receipt: pending });
          drafts.push({ at: a.grading.finalAtMs, kind: 'receipt', receipt: settledReceipt(pending, a.grading) });
        }
      }
      if (phase.phase === 'training') {
        for (const s of plan.steps) {
          const payload = { step: s.step, total_steps: plan.steps.length, reward_mean: s.rewardMean, loss: s.loss, kl: s.kl };
          lifecycle(s.endMs, 'rl.training_step', payload);
          log(s.endMs, logText.trainingStep(s, plan.steps.length));
        }
      }
      const t = tally(phase.attempts);
      lifecycle(phase.endMs, 'rl.phase_completed', { phase: phase.phase, ...t });
      log(phase.endMs, logText.phaseCompleted(phase.phase, t));
      if (phase.phase !== 'training') rates.push(t.pass_rate);
    }
    if (train) log(plan.phases[plan.phases.length - 1].endMs, logText.comparison(rates[0], rates[1]));
    const outputs = outputNames(spec);
    if (plan.exportWindow) {
      lifecycle(plan.exportWindow.startMs, 'rl.export_started', {});
      log(plan.exportWindow.startMs, logText.exportStarted());
    }
    log(plan.endMs, logText.exportCompleted(outputs));
    lifecycle(plan.endMs, 'rl.export_completed', { outputs });
  }
  log(plan.endMs, logText.stageCompleted(spec));
  lifecycle(plan.endMs, 'stage.completed', { stage_id: spec.stageId });
  status(plan.endMs, 'completed');
  // Array sort is stable: drafts at the same time keep the order in which they were produced.
  return drafts.sort((x, y) => x.at - y.at);
}

/** The run's timeline: the base plan placed and cut by the interventions. */
export function simulate(spec: SimSpec, interventions: readonly Intervention[]): Timeline {
  return playTimeline(spec, baseDrafts(spec, planRun(spec)), interventions);
}
