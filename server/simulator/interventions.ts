import { lifecycleEventId } from './event-ids.js';
import { settledReceipt } from './grading.js';
import { rlEventLine, logText, stamped } from './logs.js';
import { rngFor } from './random.js';
import type { Draft, IgnoredIntervention, Intervention, SimRLEvent, SimReceipt, SimSpec, Timeline, TimelineItem, WorkloadStatus } from './types.js';

/**
 * Places the base drafts on the clock and applies the interventions, in one forward pass.
 *
 * Causality: an intervention at T takes effect after everything due at or before T, so the items
 * up to T are the same with or without it (a materialiser that stored rows up to `now` and then
 * records an intervention at `now` never has to take a row back), and so are lifecycle event ids,
 * which count lifecycle items in order.
 *
 * - freeze at tf: `freezing` at tf, `frozen` 10-20 s later; base items after tf are held back.
 *   resume at tr: the pre-freeze status returns 5-15 s after max(tr, frozen time), and the held
 *   items move by exactly the paused span (return time - tf).
 * - recover at tr: `recovering` at tr; 45-90 s later the pre-recovery status returns in generation
 *   + 1 with `workload.recovered`; held items move by that span and carry the new generation.
 *   Attempts in flight at tr report `task_started` again in the new generation (same event ids)
 *   before their `task_completed`; replaying the last N stored events is the materialiser's job.
 * - cancel / fail at tc: the terminal status at tc, nothing of the base plan after it; receipts
 *   still pending settle as `infrastructure_failure` (`execution_cancelled` / `execution_failed`).
 *
 * Ignored: anything before creation or after the run ended, a second freeze while frozen, a resume
 * without a freeze (or a second one), a freeze or recover during a recovery, a recover while
 * frozen (nothing is executing to lose).
 */

interface Control {
  at: number;
  run: () => void;
}

class Player {
  readonly items: TimelineItem[] = [];
  private status: WorkloadStatus | null = null;
  private generation = 1;
  private lifecycleCount = 0;
  /** task_started placed, task_completed not yet, by phase/task/attempt. */
  private readonly inFlight = new Map<string, SimRLEvent>();
  /** Receipts placed as pending and not yet settled, by attempt_id. */
  private readonly pending = new Map<string, SimReceipt>();
  private stageActive = false;
  private cursor = 0;
  /** Added to every base draft still to be placed: the paused spans so far. */
  private shift = 0;
  private heldSince: number | null = null;
  private controls: Control[] = [];
  private freeze: { resumeStatus: WorkloadStatus; frozenAt: number; resuming: boolean } | null = null;
  private recovering = false;
  private freezes = 0;
  private recoveries = 0;
  endAtMs: number | null = null;
  finalStatus: WorkloadStatus | null = null;
  readonly ignored: IgnoredIntervention[] = [];

  constructor(
    private readonly spec: SimSpec,
    private readonly drafts: readonly Draft[],
  ) {}

  get ended() {
    return this.finalStatus !== null;
  }

  private setStatus(at: number, status: WorkloadStatus) {
    this.items.push({ atMs: at, kind: 'status', status, generation: this.generation });
    this.lifecycle(at, 'workload.status', { status, previous: this.status });
    this.status = status;
    if (status === 'completed' || status === 'failed' || status === 'cancelled') {
      this.finalStatus = status;
      this.endAtMs = at;
    }
  }

  private lifecycle(at: number, eventType: string, payload: Record<string, unknown>) {
    const eventId = lifecycleEventId(this.spec.workloadId, this.generation, this.lifecycleCount++);
    this.items.push({ atMs: at, kind: 'lifecycle', eventId, eventType, payload });
    if (eventType === 'stage.started') this.stageActive = true;
    if (eventType === 'stage.completed') this.stageActive = false;
  }

  private log(at: number, line: string) {
    this.items.push({ atMs: at, kind: 'log', stageId: this.spec.stageId, generation: this.generation, line });
  }

  private rlEvent(at: number, event: SimRLEvent) {
    this.items.push({ atMs: at, kind: 'rl_event', stageId: this.spec.stageId, generation: this.generation, event });
    this.log(at, rlEventLine(event));
    const key = `${event.phase}\n${event.task_id}\n${event.attempt}`;
    if (event.kind === 'task_started') this.inFlight.set(key, event);
    else this.inFlight.delete(key);
  }

  private receipt(at: number, receipt: SimReceipt) {
    this.items.push({ atMs: at, kind: 'receipt', receipt });
    if (receipt.state === 'pending') this.pending.set(receipt.attempt_id, receipt);
    else this.pending.delete(receipt.attempt_id);
  }

  private place(d: Draft, at: number) {
    switch (d.kind) {
      case 'status': return this.setStatus(at, d.status);
      case 'lifecycle': return this.lifecycle(at, d.eventType, d.payload);
      case 'rl_event': return this.rlEvent(at, d.event);
      case 'receipt': return this.receipt(at, d.receipt);
      case 'log': return this.log(at, stamped(at, d.text));
    }
  }

  private schedule(at: number, run: () => void) {
    this.controls.push({ at, run });
    this.controls.sort((a, b) => a.at - b.at);
  }

  private hold(at: number) {
    this.heldSince = at;
  }

  private release(at: number) {
    this.shift += at - (this.heldSince ?? at);
    this.heldSince = null;
  }

  /** Places everything due at or before `t`: scheduled transitions first on ties, then base drafts. */
  advanceTo(t: number) {
    while (!this.ended) {
      const control = this.controls.length ? this.controls[0].at : Infinity;
      const base = this.heldSince === null && this.cursor < this.drafts.length ? this.spec.createdAtMs + this.shift + this.drafts[this.cursor].at : Infinity;
      const next = Math.min(control, base);
      if (next === Infinity || next > t) return;
      if (control <= base) this.controls.shift()!.run();
      else this.place(this.drafts[this.cursor++], base);
    }
  }

  apply(iv: Intervention) {
    const ignore = (reason: IgnoredIntervention['reason']) => this.ignored.push({ intervention: iv, reason });
    if (iv.atMs < this.spec.createdAtMs) return ignore('before_creation');
    this.advanceTo(iv.atMs);
    if (this.ended) return ignore('terminal');
    const at = iv.atMs;
    switch (iv.kind) {
      case 'freeze': {
        if (this.freeze) return ignore('already_frozen');
        if (this.recovering) return ignore('recovering');
        const frozenAt = at + rngFor(this.spec.seed, 'freeze-transition', ++this.freezes).between(10_000, 20_000);
        this.freeze = { resumeStatus: this.status!, frozenAt, resuming: false };
        this.hold(at);
        this.setStatus(at, 'freezing');
        if (this.stageActive) this.log(at, stamped(at, logText.freezing()));
        this.schedule(frozenAt, () => this.setStatus(frozenAt, 'frozen'));
        return;
      }
      case 'resume': {
        const freeze = this.freeze;
        if (!freeze) return ignore('not_frozen');
        if (freeze.resuming) return ignore('resume_pending');
        freeze.resuming = true;
        const backAt = Math.max(at, freeze.frozenAt) + rngFor(this.spec.seed, 'resume-transition', this.freezes).between(5_000, 15_000);
        this.schedule(backAt, () => {
          this.setStatus(backAt, freeze.resumeStatus);
          if (this.stageActive) this.log(backAt, stamped(backAt, logText.resumed()));
          this.release(backAt);
          this.freeze = null;
        });
        return;
      }
      case 'recover': {
        if (this.freeze) return ignore('frozen');
        if (this.recovering) return ignore('recovering');
        const resumeStatus = this.status!;
        const backAt = at + rngFor(this.spec.seed, 'recovery', ++this.recoveries).between(45_000, 90_000);
        this.recovering = true;
        this.hold(at);
        this.setStatus(at, 'recovering');
        if (this.stageActive) this.log(at, stamped(at, logText.interrupted()));
        this.schedule(backAt, () => {
          this.generation++;
          this.setStatus(backAt, resumeStatus);
          this.lifecycle(backAt, 'workload.recovered', { generation: this.generation });
          if (this.stageActive) {
            this.log(backAt, stamped(backAt, logText.recovered(this.generation)));
            for (const started of [...this.inFlight.values()]) this.rlEvent(backAt, started);
          }
          this.release(backAt);
          this.recovering = false;
        });
        return;
      }
      case 'cancel':
      case 'fail': {
        const cancelled = iv.kind === 'cancel';
        this.setStatus(at, cancelled ? 'cancelled' : 'failed');
        this.lifecycle(at, cancelled ? 'workload.cancelled' : 'workload.failed', iv.kind === 'fail' ? { reason: iv.reason } : {});
        for (const pending of [...this.pending.values()]) {
          this.receipt(at, settledReceipt(pending, { state: 'infrastructure_failure', code: cancelled ? 'execution_cancelled' : 'execution_failed' }));
        }
        if (this.stageActive) this.log(at, stamped(at, iv.kind === 'fail' ? logText.failed(iv.reason) : logText.cancelled()));
        this.controls = [];
        return;
      }
    }
  }
}

export function playTimeline(spec: SimSpec, drafts: readonly Draft[], interventions: readonly Intervention[]): Timeline {
  const player = new Player(spec, drafts);
  // Array sort is stable: interventions recorded at the same time apply in the order given.
  for (const iv of [...interventions].sort((a, b) => a.atMs - b.atMs)) player.apply(iv);
  player.advanceTo(Infinity);
  return { items: player.items, endAtMs: player.endAtMs, finalStatus: player.finalStatus, ignored: player.ignored };
}
