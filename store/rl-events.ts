import type { Db } from './db.js';

/** One RL event to store: `event` is its canonical JSON, exactly as pages will serve it. */
export interface RLEventInput {
  stageId: string;
  generation: number;
  receivedAtMs: number;
  eventId: string;
  phase: string;
  taskId: string;
  attempt: number;
  kind: string;
  event: string;
}

export interface RLEventRow {
  seq: number;
  stageId: string;
  generation: number;
  receivedAtMs: number;
  event: string;
}

export interface EventBounds {
  maxEvents: number;
  maxBytes: number;
  /** The contract's cap on one encoded event. */
  maxEventBytes: number;
}

/**
 * Within one (workload, stage, generation): stored, a new row; duplicate, the same event_id with
 * identical content, ignored; changed, the same event_id with other content, refused; clash, the
 * same (phase, task, attempt, kind) under another event_id, refused; dropped, over a bound, counted.
 * Refusals are decided before bounds, so a refused event never counts as dropped.
 */
type AppendOutcome = 'stored' | 'duplicate' | 'changed' | 'clash' | 'dropped';

/** What the summary and grading read of a stored event: its identity and outcome, not its text. */
export interface RLReport {
  seq: number;
  generation: number;
  receivedAtMs: number;
  phase: string;
  taskId: string;
  attempt: number;
  kind: string;
  outcome: string | null;
  reward: number | null;
}

export interface EvidenceCounters {
  count: number;
  bytes: number;
  dropped: number;
  truncated: boolean;
}

export function createRLEventStore(db: Db) {
  const counters = db.prepare<[string], { count: number; bytes: number; dropped: number; truncated: number }>(
    'SELECT rl_event_count AS count, rl_event_bytes AS bytes, dropped_events AS dropped, truncated FROM workloads WHERE id = ?',
  );
  const saveCounters = db.prepare(
    'UPDATE workloads SET rl_event_count = ?, rl_event_bytes = ?, dropped_events = ?, truncated = ? WHERE id = ?',
  );
  const insert = db.prepare(
    `INSERT INTO rl_events (seq, workload_id, stage_id, generation, received_at_ms, event_id, phase, task_id, attempt, kind, event)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  );
  // seq counts within the workload (migration 012); an append reads the last once, not per event.
  const lastSeq = db.prepare<[string], number>('SELECT coalesce(max(seq), 0) FROM rl_events WHERE workload_id = ?').pluck();
  const byEventId = db.prepare<[string, string, number, string], { event: string }>(
    'SELECT event FROM rl_events WHERE workload_id = ? AND stage_id = ? AND generation = ? AND event_id = ?',
  );
  const byIdentity = db.prepare<[string, string, number, string, string, number, string], { seq: number }>(
    `SELECT seq FROM rl_events
     WHERE workload_id = ? AND stage_id = ? AND generation = ? AND phase = ? AND task_id = ? AND attempt = ? AND kind = ?`,
  );
  const page = db.prepare<[string, number, number], RLEventRow>(
    `SELECT seq, stage_id AS stageId, generation, received_at_ms AS receivedAtMs, event
     FROM rl_events WHERE workload_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
  );
  const lastOfGeneration = db.prepare<[string, number, number], RLEventInput & { seq: number }>(
    `SELECT seq, stage_id AS stageId, generation, received_at_ms AS receivedAtMs, event_id AS eventId, phase,
            task_id AS taskId, attempt, kind, event
     FROM rl_events WHERE workload_id = ? AND generation = ? ORDER BY seq DESC LIMIT ?`,
  );
  const REPORT_COLUMNS = `seq, generation, received_at_ms AS receivedAtMs, phase, task_id AS taskId, attempt, kind,
    json_extract(event, '$.outcome') AS outcome, json_extract(event, '$.reward') AS reward`;
  const reports = db.prepare<[string], RLReport>(`SELECT ${REPORT_COLUMNS} FROM rl_events WHERE workload_id = ? ORDER BY seq`);
  const phaseReports = db.prepare<[string, string], RLReport & { output: string | null }>(
    `SELECT ${REPORT_COLUMNS}, json_extract(event, '$.output') AS output
     FROM rl_events WHERE workload_id = ? AND phase = ? ORDER BY seq`,
  );

  return {
    counters(workloadId: string): EvidenceCounters {
      const c = counters.get(workloadId)!;
      return { count: c.count, bytes: c.bytes, dropped: c.dropped, truncated: c.truncated === 1 };
    },

    /** Appends in order, enforcing identity rules and bounds; call inside a write transaction. */
    append(workloadId: string, inputs: readonly RLEventInput[], bounds: EventBounds): AppendOutcome[] {
      const c = this.counters(workloadId);
      let seq = lastSeq.get(workloadId)!;
      const outcomes = inputs.map((input): AppendOutcome => {
        const bytes = Buffer.byteLength(input.event, 'utf8');
        const fits = bytes <= bounds.maxEventBytes && c.count + 1 <= bounds.maxEvents && c.bytes + bytes <= bounds.maxBytes;
        // Nearly every event is new: insert first and look the event id up only when the insert
        // is refused (or not allowed), to tell a duplicate from a conflict. A lookup before every
        // insert was a third of the cost of materialising a run (bench/, materialise profile).
        if (fits) {
          const result = insert.run(seq + 1, workloadId, input.stageId, input.generation, input.receivedAtMs, input.eventId,
            input.phase, input.taskId, input.attempt, input.kind, input.event);
          if (result.changes === 1) {
            seq += 1;
            c.count += 1;
            c.bytes += bytes;
            return 'stored';
          }
        }
        const existing = byEventId.get(workloadId, input.stageId, input.generation, input.eventId);
        if (existing) return existing.event === input.event ? 'duplicate' : 'changed';
        if (byIdentity.get(workloadId, input.stageId, input.generation, input.phase, input.taskId, input.attempt, input.kind)) return 'clash';
        c.dropped += 1;
        c.truncated = true;
        return 'dropped';
      });
      saveCounters.run(c.count, c.bytes, c.dropped, c.truncated ? 1 : 0, workloadId);
      return outcomes;
    },

    /** Counts events lost outside the server (POST /_mock/workloads/{id}/drop-events). */
    drop(workloadId: string, count: number): void {
      const c = this.counters(workloadId);
      saveCounters.run(c.count, c.bytes, c.dropped + count, 1, workloadId);
    },

    /** Keyset page: the cost does not depend on how deep `afterSeq` is. */
    page(workloadId: string, afterSeq: number, limit: number): RLEventRow[] {
      return page.all(workloadId, afterSeq, limit);
    },

    /** The newest `n` events of one generation, any stage, oldest first (recovery replay). */
    lastOf(workloadId: string, generation: number, n: number): RLEventInput[] {
      return lastOfGeneration.all(workloadId, generation, n).map(({ seq: _seq, ...e }) => e).reverse();
    },

    /** Every stored event's identity and outcome, in row order (the summary's input). */
    reports(workloadId: string): RLReport[] {
      return reports.all(workloadId);
    },

    /** The same for one phase, with the reply text a grading candidate is hashed from. */
    phaseReports(workloadId: string, phase: string): Array<RLReport & { output: string | null }> {
      return phaseReports.all(workloadId, phase);
    },
  };
}
