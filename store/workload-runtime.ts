import type { Db } from './db.js';

export interface InterventionRow {
  seq: number;
  atMs: number;
  kind: string;
  args: string;
}

interface WorkloadEventRow {
  seq: number;
  eventId: string;
  eventType: string;
  payload: string;
  createdAtMs: number;
}

export interface LogRow {
  seq: number;
  stageId: string;
  generation: number;
  atMs: number;
  line: string;
}

export type LogInput = Omit<LogRow, 'seq'>;

/** One attempt's log (a stage in a generation): the bytes retained and whether lines were dropped. */
export interface LogAttempt {
  stageId: string;
  generation: number;
  bytes: number;
  truncated: boolean;
}

/** Interventions, lifecycle events and log lines: what the materialiser writes besides evidence. */
export function createWorkloadRuntimeStore(db: Db) {
  // seq counts within the workload (migration 012): the next is one past the workload's last.
  const next = (table: string) => `(SELECT coalesce(max(seq), 0) + 1 FROM ${table} WHERE workload_id = ?)`;
  const addIntervention = db.prepare(
    `INSERT INTO workload_interventions (seq, workload_id, at_ms, kind, args) VALUES (${next('workload_interventions')}, ?, ?, ?, ?)`,
  );
  const interventions = db.prepare<[string], InterventionRow>(
    'SELECT seq, at_ms AS atMs, kind, args FROM workload_interventions WHERE workload_id = ? ORDER BY seq',
  );
  const addEvent = db.prepare(
    `INSERT OR IGNORE INTO workload_events (seq, workload_id, event_id, event_type, payload, created_at_ms)
     VALUES (${next('workload_events')}, ?, ?, ?, ?, ?)`,
  );
  const events = db.prepare<[string, number, number], WorkloadEventRow>(
    `SELECT seq, event_id AS eventId, event_type AS eventType, payload, created_at_ms AS createdAtMs
     FROM workload_events WHERE workload_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
  );
  const addLog = db.prepare('INSERT INTO workload_logs (seq, workload_id, stage_id, generation, at_ms, line) VALUES (?, ?, ?, ?, ?, ?)');
  // Lines come in batches: the workload's last seq is read once per batch, not once per line.
  const lastLog = db.prepare<[string], number>('SELECT coalesce(max(seq), 0) FROM workload_logs WHERE workload_id = ?').pluck();
  const logs = db.prepare<[string, number, number], LogRow>(
    `SELECT seq, stage_id AS stageId, generation, at_ms AS atMs, line
     FROM workload_logs WHERE workload_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
  );
  const attemptLines = db.prepare<[string, string, number], { line: string }>(
    'SELECT line FROM workload_logs WHERE workload_id = ? AND stage_id = ? AND generation = ? ORDER BY seq',
  );
  const getAttempt = db.prepare<[string, string, number], { bytes: number; truncated: number }>(
    'SELECT bytes, truncated FROM workload_log_attempts WHERE workload_id = ? AND stage_id = ? AND generation = ?',
  );
  const saveAttempt = db.prepare(
    `INSERT INTO workload_log_attempts (workload_id, stage_id, generation, bytes, truncated) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (workload_id, stage_id, generation) DO UPDATE SET bytes = excluded.bytes, truncated = excluded.truncated`,
  );
  // Newest attempt first: the highest generation, then the stage whose log started last.
  const findAttempt = db.prepare<[string, string | null, string | null, number | null, number | null], { stageId: string; generation: number; bytes: number; truncated: number }>(
    `SELECT stage_id AS stageId, generation, bytes, truncated FROM workload_log_attempts
     WHERE workload_id = ? AND (? IS NULL OR stage_id = ?) AND (? IS NULL OR generation = ?)
     ORDER BY generation DESC, rowid DESC LIMIT 1`,
  );
  const anyTruncated = db.prepare<[string], { n: number }>(
    'SELECT count(*) AS n FROM workload_log_attempts WHERE workload_id = ? AND truncated = 1',
  );
  return {
    addIntervention(workloadId: string, atMs: number, kind: string, args: object): void {
      addIntervention.run(workloadId, workloadId, atMs, kind, JSON.stringify(args));
    },
    interventions(workloadId: string): InterventionRow[] {
      return interventions.all(workloadId);
    },
    addEvent(workloadId: string, eventId: string, eventType: string, payload: object, createdAtMs: number): void {
      addEvent.run(workloadId, workloadId, eventId, eventType, JSON.stringify(payload), createdAtMs);
    },
    events(workloadId: string, afterSeq: number, limit: number): WorkloadEventRow[] {
      return events.all(workloadId, afterSeq, limit);
    },
    /**
     * Appends lines in order, keeping at most `maxBytesPerAttempt` per attempt, counted as the
     * lines plus one line break each (what a live page's chunks add up to). The first line that
     * does not fit and every later line of its attempt are dropped, so what is kept is a prefix.
     */
    appendLogs(workloadId: string, lines: readonly LogInput[], maxBytesPerAttempt: number): void {
      const attempts = new Map<string, { stageId: string; generation: number; bytes: number; truncated: boolean }>();
      let seq: number | undefined;
      for (const l of lines) {
        const key = `${l.generation}\n${l.stageId}`;
        let a = attempts.get(key);
        if (!a) {
          const stored = getAttempt.get(workloadId, l.stageId, l.generation);
          a = { stageId: l.stageId, generation: l.generation, bytes: stored?.bytes ?? 0, truncated: stored?.truncated === 1 };
          attempts.set(key, a);
        }
        if (a.truncated) continue;
        const bytes = Buffer.byteLength(l.line, 'utf8') + 1;
        if (a.bytes + bytes > maxBytesPerAttempt) {
          a.truncated = true;
          continue;
        }
        seq = (seq ?? lastLog.get(workloadId)!) + 1;
        addLog.run(seq, workloadId, l.stageId, l.generation, l.atMs, l.line);
        a.bytes += bytes;
      }
      for (const a of attempts.values()) saveAttempt.run(workloadId, a.stageId, a.generation, a.bytes, a.truncated ? 1 : 0);
    },
    /** The newest attempt matching what is given, or undefined when no line of one was written. */
    logAttempt(workloadId: string, stageId?: string, generation?: number): LogAttempt | undefined {
      const s = stageId ?? null;
      const g = generation ?? null;
      const row = findAttempt.get(workloadId, s, s, g, g);
      return row && { stageId: row.stageId, generation: row.generation, bytes: row.bytes, truncated: row.truncated === 1 };
    },
    attemptLines(workloadId: string, stageId: string, generation: number): string[] {
      return attemptLines.all(workloadId, stageId, generation).map((r) => r.line);
    },
    /** Whether any attempt of the workload dropped lines over its bound. */
    logsTruncated(workloadId: string): boolean {
      return anyTruncated.get(workloadId)!.n > 0;
    },
    logs(workloadId: string, afterSeq: number, limit: number): LogRow[] {
      return logs.all(workloadId, afterSeq, limit);
    },
  };
}
