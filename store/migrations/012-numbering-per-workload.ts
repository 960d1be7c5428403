export default {
  version: 12,
  name: 'numbering-per-workload',
  sql: `
    -- The seq of lifecycle events, task events, log lines and interventions was the table's row
    -- id, shared by every tenant: any tenant's activity (or one restored row numbered 2^53-1)
    -- moved everyone's numbers, and the wire showed them. Now seq counts within its workload,
    -- and the row id behind it is SQLite's own, never shown and never taken from a client.
    -- Rows keep the numbers clients already saw: unique and increasing within each workload.
    CREATE TABLE workload_interventions_new (
      seq         INTEGER NOT NULL,
      workload_id TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      at_ms       INTEGER NOT NULL,
      kind        TEXT NOT NULL,
      args        TEXT NOT NULL,
      UNIQUE (workload_id, seq)
    ) STRICT;
    INSERT INTO workload_interventions_new (seq, workload_id, at_ms, kind, args)
      SELECT seq, workload_id, at_ms, kind, args FROM workload_interventions ORDER BY seq;
    DROP TABLE workload_interventions;
    ALTER TABLE workload_interventions_new RENAME TO workload_interventions;

    CREATE TABLE workload_events_new (
      seq           INTEGER NOT NULL,
      workload_id   TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      event_id      TEXT NOT NULL,
      event_type    TEXT NOT NULL,
      payload       TEXT NOT NULL,
      created_at_ms INTEGER NOT NULL,
      UNIQUE (workload_id, event_id),
      UNIQUE (workload_id, seq)
    ) STRICT;
    INSERT INTO workload_events_new (seq, workload_id, event_id, event_type, payload, created_at_ms)
      SELECT seq, workload_id, event_id, event_type, payload, created_at_ms FROM workload_events ORDER BY seq;
    DROP TABLE workload_events;
    ALTER TABLE workload_events_new RENAME TO workload_events;

    CREATE TABLE rl_events_new (
      seq            INTEGER NOT NULL,
      workload_id    TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      stage_id       TEXT NOT NULL,
      generation     INTEGER NOT NULL,
      received_at_ms INTEGER NOT NULL,
      event_id       TEXT NOT NULL,
      phase          TEXT NOT NULL,
      task_id        TEXT NOT NULL,
      attempt        INTEGER NOT NULL,
      kind           TEXT NOT NULL,
      event          TEXT NOT NULL,
      UNIQUE (workload_id, seq),
      UNIQUE (workload_id, stage_id, generation, event_id),
      UNIQUE (workload_id, stage_id, generation, phase, task_id, attempt, kind)
    ) STRICT;
    INSERT INTO rl_events_new (seq, workload_id, stage_id, generation, received_at_ms, event_id, phase, task_id, attempt, kind, event)
      SELECT seq, workload_id, stage_id, generation, received_at_ms, event_id, phase, task_id, attempt, kind, event
      FROM rl_events ORDER BY seq;
    DROP TABLE rl_events;
    ALTER TABLE rl_events_new RENAME TO rl_events;

    CREATE TABLE workload_logs_new (
      seq         INTEGER NOT NULL,
      workload_id TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      stage_id    TEXT NOT NULL,
      generation  INTEGER NOT NULL,
      at_ms       INTEGER NOT NULL,
      line        TEXT NOT NULL,
      UNIQUE (workload_id, seq)
    ) STRICT;
    INSERT INTO workload_logs_new (seq, workload_id, stage_id, generation, at_ms, line)
      SELECT seq, workload_id, stage_id, generation, at_ms, line FROM workload_logs ORDER BY seq;
    DROP TABLE workload_logs;
    ALTER TABLE workload_logs_new RENAME TO workload_logs;
    CREATE INDEX workload_logs_attempt ON workload_logs (workload_id, stage_id, generation, seq);

    -- The request journal's wire id was its global AUTOINCREMENT id; it is now the per-tenant
    -- seq, and last_seq the tenant's last one, so a cleared or reset journal never hands a
    -- number out again. Its own table: an update of tenants would forget the cached clock.
    CREATE TABLE journal_numbers (
      tenant_id TEXT PRIMARY KEY REFERENCES tenants(id),
      last_seq  INTEGER NOT NULL
    ) STRICT;
    INSERT INTO journal_numbers (tenant_id, last_seq)
      SELECT tenant_id, max(seq) FROM request_journal GROUP BY tenant_id;
  `,
};
