export default {
  version: 3,
  name: 'runs',
  sql: `
    -- What a test or the SDK did to a workload (cancel, fail, freeze, resume, recover), with the
    -- virtual time it happened: the simulator's input besides the spec.
    CREATE TABLE workload_interventions (
      seq         INTEGER PRIMARY KEY,
      workload_id TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      at_ms       INTEGER NOT NULL,
      kind        TEXT NOT NULL,
      args        TEXT NOT NULL
    ) STRICT;
    CREATE INDEX workload_interventions_by_workload ON workload_interventions (workload_id, seq);

    -- Lifecycle events (GET /v1/workloads/{id}/events); seq is the integer id the SDK pages by.
    CREATE TABLE workload_events (
      seq           INTEGER PRIMARY KEY,
      workload_id   TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      event_id      TEXT NOT NULL,
      event_type    TEXT NOT NULL,
      payload       TEXT NOT NULL,
      created_at_ms INTEGER NOT NULL,
      UNIQUE (workload_id, event_id)
    ) STRICT;
    CREATE INDEX workload_events_page ON workload_events (workload_id, seq);

    -- RL task evidence: append-only, so a page after a seq never changes; seq is the decimal row id on the wire.
    CREATE TABLE rl_events (
      seq            INTEGER PRIMARY KEY,
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
      UNIQUE (workload_id, stage_id, generation, event_id),
      UNIQUE (workload_id, stage_id, generation, phase, task_id, attempt, kind)
    ) STRICT;
    CREATE INDEX rl_events_page ON rl_events (workload_id, seq);

    ALTER TABLE workloads ADD COLUMN rl_event_count INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE workloads ADD COLUMN rl_event_bytes INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE workloads ADD COLUMN dropped_events INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE workloads ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0;
    -- 1 once the run has ended and every item of its timeline is materialised: nothing more to do.
    ALTER TABLE workloads ADD COLUMN settled INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX workloads_unsettled ON workloads (tenant_id, settled);

    -- Private grading: one plan per (workload, revision), one receipt per admitted attempt.
    CREATE TABLE grading_plans (
      workload_id   TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      revision      INTEGER NOT NULL,
      plan_sha256   TEXT NOT NULL,
      simulated     INTEGER NOT NULL,
      created_at_ms INTEGER NOT NULL,
      PRIMARY KEY (workload_id, revision)
    ) STRICT;
    CREATE TABLE grading_receipts (
      workload_id   TEXT NOT NULL,
      revision      INTEGER NOT NULL,
      attempt_id    TEXT NOT NULL,
      created_at_ms INTEGER NOT NULL,
      receipt       TEXT NOT NULL,
      PRIMARY KEY (workload_id, revision, attempt_id),
      FOREIGN KEY (workload_id, revision) REFERENCES grading_plans (workload_id, revision) ON DELETE CASCADE
    ) STRICT;

    -- Log lines per stage and generation (GET .../logs and .../logs/live).
    CREATE TABLE workload_logs (
      seq         INTEGER PRIMARY KEY,
      workload_id TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      stage_id    TEXT NOT NULL,
      generation  INTEGER NOT NULL,
      at_ms       INTEGER NOT NULL,
      line        TEXT NOT NULL
    ) STRICT;
    CREATE INDEX workload_logs_page ON workload_logs (workload_id, seq);
  `,
};
