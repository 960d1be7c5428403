import { isPlainRLEvent, RL_EVENT_MAX_ENCODED_BYTES, RLEvent, rlEventKeys } from '../../../openapi/rl-evidence.js';
import type { EventBounds, RLEventInput } from '../../../store/rl-events.js';
import type { InterventionRow, LogInput } from '../../../store/workload-runtime.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { rlEventLine, simulate, stateAt } from '../../simulator/index.js';
import { FIRST_GENERATION, type Intervention, type SimRLEvent, type SimReceipt, type SimSpec, type TimelineItem } from '../../simulator/types.js';
import type { CommittedReads, TenantUnit } from '../unit.js';
import type { Config } from '../../config.js';
import { canonicalJsonOf } from '../json-text.js';
import type { RunContext, RunEnd, StatusItem } from './run.js';

const SIMULATED_KINDS = new Set(['cancel', 'fail', 'freeze', 'resume', 'recover']);

type ReceiptItem = Extract<TimelineItem, { kind: 'receipt' }>;

/**
 * A workload after one materialise step, and the status items the step passed (oldest first),
 * which the unit of work hands to the webhook outbox in the same transaction.
 */
export interface Materialised {
  row: WorkloadRow;
  run: RunContext | undefined;
  passed: readonly StatusItem[];
}

const UNCHANGED: readonly StatusItem[] = Object.freeze([]);

/** The stored text must not change: a repeated event is compared with it as text. */
const canonicalEvent = canonicalJsonOf<SimRLEvent>(rlEventKeys);

/**
 * What the store keeps of one event: pages serve its text as is, so it takes an RLEvent (the
 * schema's output), never an unchecked one.
 */
export function rlEventInput(stageId: string, generation: number, receivedAtMs: number, event: RLEvent): RLEventInput {
  return {
    stageId,
    generation,
    receivedAtMs,
    eventId: event.event_id,
    phase: event.phase,
    taskId: event.task_id,
    attempt: event.attempt,
    kind: event.kind,
    event: canonicalEvent(event),
  };
}

function toIntervention(row: InterventionRow): Intervention {
  return { kind: row.kind, atMs: row.atMs, ...JSON.parse(row.args) } as Intervention;
}

/** Index of the first item after `t` (items are sorted by atMs). */
export function firstAfter(items: readonly TimelineItem[], t: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid].atMs <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Sets `key`, the oldest entry making room: both caches hold derived data only. */
function keep<V>(cache: Map<string, V>, key: string, value: V, most: number): void {
  if (cache.size >= most) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

/** Whole timelines kept: a train run's holds thousands of items. */
const CONTEXTS_KEPT = 256;
/** Ends kept: two numbers a run, so every run of the largest tenants fits. */
const ENDS_KEPT = 50_000;

/**
 * Materialisation: a workload's stored rows are the simulator's timeline up to the tenant's
 * virtual now. Every call writes what fell due since the last one, in the caller's transaction,
 * and moves the row's `materialised_to_ms` with it, so a restart continues exactly where the
 * last commit stopped: no gaps, no duplicates. Timelines are derived data, cached by the workload
 * and the content of its interventions; nothing authoritative lives in the cache.
 */
export class Materialiser {
  private readonly cache = new Map<string, RunContext>();
  private readonly ends = new Map<string, RunEnd>();

  constructor(private readonly deps: { committed: Pick<CommittedReads, 'runtime'>; config: Config }) {}

  bounds(): EventBounds {
    return {
      maxEvents: this.deps.config.maxEventsPerWorkload,
      maxBytes: this.deps.config.maxEventBytesPerWorkload,
      maxEventBytes: RL_EVENT_MAX_ENCODED_BYTES,
    };
  }

  context(row: WorkloadRow): RunContext {
    return this.contextOf(row, this.interventionsOf(row));
  }

  /**
   * When the run ends, as context() would say, from a cache that keeps far more runs than
   * context()'s: an advance until idle asks it of every run of the tenant, twice, and simulating
   * a thousand train runs took seconds.
   */
  end(row: WorkloadRow): RunEnd {
    const interventions = this.interventionsOf(row);
    return this.ends.get(interventions.key) ?? this.contextOf(row, interventions).timeline;
  }

  /** The workload's interventions and the key of its simulation: its id and their content. */
  private interventionsOf(row: WorkloadRow) {
    const rows = this.deps.committed.runtime.interventions(row.id);
    // Keyed by content, not by the last row id: SQLite reuses the id of a rolled-back insert.
    return { rows, key: `${row.id}:${rows.map((r) => `${r.seq},${r.atMs},${r.kind},${r.args}`).join(';')}` };
  }

  private contextOf(row: WorkloadRow, { rows, key }: ReturnType<Materialiser['interventionsOf']>): RunContext {
    const cached = this.cache.get(key);
    if (cached) return cached;
    const spec = JSON.parse(row.spec) as SimSpec;
    const interventions = rows.filter((r) => SIMULATED_KINDS.has(r.kind)).map(toIntervention);
    const context = { spec, interventions, timeline: simulate(spec, interventions) };
    keep(this.cache, key, context, CONTEXTS_KEPT);
    keep(this.ends, key, { endAtMs: context.timeline.endAtMs, finalStatus: context.timeline.finalStatus }, ENDS_KEPT);
    return context;
  }

  /**
   * Brings one workload up to `nowMs`, through the unit's tables, in its transaction; answers the
   * row as stored afterwards and the status items passed. Only a unit of work calls it
   * (unit-of-work.ts), which announces those items.
   */
  materialise(unit: TenantUnit, row: WorkloadRow, nowMs: number): Materialised {
    if (row.settled || nowMs <= row.materialisedToMs) return { row, run: undefined, passed: UNCHANGED };
    const ctx = this.context(row);
    const { items } = ctx.timeline;
    const { tables } = unit;
    const from = firstAfter(items, row.materialisedToMs);
    const to = firstAfter(items, nowMs);
    const plan = ctx.spec.privateGrading ? tables.grading.plan(row.id, 1) : undefined;
    let generation = row.generation;
    let batch: RLEventInput[] = [];
    const flush = () => {
      if (batch.length) tables.rlEvents.append(row.id, batch, this.bounds());
      batch = [];
    };
    const logs: LogInput[] = [];
    const receipts: ReceiptItem[] = [];
    const statuses: StatusItem[] = [];

    for (let i = from; i < to; i++) {
      const item = items[i];
      switch (item.kind) {
        case 'status':
          statuses.push(item);
          if (item.generation > generation) {
            flush();
            this.replayIntoGeneration(unit, row.id, ctx, item.generation, item.atMs);
            generation = item.generation;
          }
          break;
        case 'lifecycle':
          tables.runtime.addEvent(row.id, item.eventId, item.eventType, item.payload, item.atMs);
          break;
        case 'rl_event':
          // Checked like an ingested event: pages send stored text without encoding it again.
          batch.push(rlEventInput(item.stageId, item.generation, item.atMs, isPlainRLEvent(item.event) ? item.event : RLEvent.parse(item.event)));
          break;
        case 'receipt':
          // A plan the user replaced through the control API is theirs; simulated receipts stop.
          if (plan?.simulated) receipts.push(item);
          break;
        case 'log':
          logs.push({ stageId: item.stageId, generation: item.generation, atMs: item.atMs, line: item.line });
          break;
      }
    }
    flush();
    if (logs.length) tables.runtime.appendLogs(row.id, logs, this.deps.config.maxLogBytesPerAttempt);
    this.putReceipts(unit, row.id, receipts);

    const state = stateAt(ctx.spec, ctx.interventions, nowMs, ctx.timeline);
    const lastAtMs = items.length ? items[items.length - 1].atMs : row.createdAtMs;
    const next = {
      status: state.status,
      updatedAtMs: state.updatedAtMs,
      spendUsd: state.spendUsd,
      generation: Math.max(generation, state.generation),
      materialisedToMs: nowMs,
      settled: state.terminal && nowMs >= lastAtMs ? 1 : 0,
    };
    tables.workloads.saveState(row.id, next);
    return { row: { ...row, ...next }, run: ctx, passed: statuses };
  }

  /**
   * Writes receipt items, each attempt's once: with its first item's time, which putReceipt keeps
   * as the receipt's creation, and its last state. A run materialised in one step wrote every
   * graded attempt twice otherwise, pending and then final. Simulated receipts are all of plan
   * revision 1 (a launch admits only that plan).
   */
  private putReceipts(unit: TenantUnit, workloadId: string, items: readonly ReceiptItem[]): void {
    const latest = new Map<string, { atMs: number; receipt: SimReceipt }>();
    for (const { atMs, receipt } of items) latest.set(receipt.attempt_id, { atMs: latest.get(receipt.attempt_id)?.atMs ?? atMs, receipt });
    for (const [attemptId, r] of latest) unit.tables.grading.putReceipt(workloadId, 1, attemptId, r.atMs, r.receipt);
  }

  /**
   * Gives revision 1's plan back to the simulator after PUT /_mock/workloads/{id}/grading-plan
   * replaced it: the receipts already due are written again, in the unit, later ones follow as usual.
   */
  restoreSimulatedReceipts(unit: TenantUnit, row: WorkloadRow): void {
    const { items } = this.context(row).timeline;
    const due = items.slice(0, firstAfter(items, row.materialisedToMs));
    this.putReceipts(unit, row.id, due.filter((item): item is ReceiptItem => item.kind === 'receipt'));
  }

  /**
   * Recovery re-reports the last N task events of the old generation with their event ids, as
   * new rows of the new one (ids are unique per generation): read from the stored rows, so ingested
   * events of custom runs are replayed the same way as simulated ones. The workload prints them
   * again, so they are logged again too.
   */
  private replayIntoGeneration(unit: TenantUnit, workloadId: string, ctx: RunContext, generation: number, atMs: number): void {
    // Counted among the recoveries the simulator applied: an ignored one started no generation.
    const ignored = new Set(ctx.timeline.ignored.map((i) => i.intervention));
    const recoveries = ctx.interventions.filter((i): i is Extract<Intervention, { kind: 'recover' }> => i.kind === 'recover' && !ignored.has(i));
    const cause = recoveries[generation - FIRST_GENERATION - 1];
    if (!cause || cause.replayLast <= 0) return;
    const { tables } = unit;
    const previous = tables.rlEvents.lastOf(workloadId, generation - 1, cause.replayLast);
    tables.runtime.appendLogs(
      workloadId,
      previous.map((e) => ({ stageId: e.stageId, generation, atMs, line: rlEventLine(JSON.parse(e.event)) })),
      this.deps.config.maxLogBytesPerAttempt,
    );
    tables.rlEvents.append(
      workloadId,
      previous.map((e) => ({ ...e, generation, receivedAtMs: atMs })),
      this.bounds(),
    );
  }
}
