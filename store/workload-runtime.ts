import type { Db } from './db.js';

export interface InterventionRow {
  seq: number;
  atMs: number;
  kind: string;
  args: string;
}

export interface WorkloadEventRow {
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

/** Interventions, lifecycle events and log lines: what the materialiser writes besides evidence. */
export function createWorkloadRuntimeStore(db: Db) {
  const addIntervention = db.prepare('INSERT INTO workload_interventions (workload_id, at_ms, kind, args) VALUES (?, ?, ?, ?)');
  const interventions = db.prepare<[string], InterventionRow>(
    'SELECT seq, at_ms AS atMs, kind, args FROM workload_interventions WHERE workload_id = ? ORDER BY seq',
  );
  const addEvent = db.prepare(
    'INSERT OR IGNORE INTO workload_events (workload_id, event_id, event_type, payload, created_at_ms) VALUES (?, ?, ?, ?, ?)',
  );
  const events = db.prepare<[string, number, number], WorkloadEventRow>(
    `SELECT seq, event_id AS eventId, event_type AS eventType, payload, created_at_ms AS createdAtMs
     FROM workload_events WHERE workload_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
  );
  const addLog = db.prepare('INSERT INTO workload_logs (workload_id, stage_id, generation, at_ms, line) VALUES (?, ?, ?, ?, ?)');
  const logs = db.prepare<[string, number, number], LogRow>(
    `SELECT seq, stage_id AS stageId, generation, at_ms AS atMs, line
     FROM workload_logs WHERE workload_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
  );
  return {
    addIntervention(workloadId: string, atMs: number, kind: string, args: object): void {
      addIntervention.run(workloadId, atMs, kind, JSON.stringify(args));
    },
    interventions(workloadId: string): InterventionRow[] {
      return interventions.all(workloadId);
    },
    addEvent(workloadId: string, eventId: string, eventType: string, payload: object, createdAtMs: number): void {
      addEvent.run(workloadId, eventId, eventType, JSON.stringify(payload), createdAtMs);
    },
    events(workloadId: string, afterSeq: number, limit: number): WorkloadEventRow[] {
      return events.all(workloadId, afterSeq, limit);
    },
    addLog(workloadId: string, stageId: string, generation: number, atMs: number, line: string): void {
      addLog.run(workloadId, stageId, generation, atMs, line);
    },
    logs(workloadId: string, afterSeq: number, limit: number): LogRow[] {
      return logs.all(workloadId, afterSeq, limit);
    },
  };
}
