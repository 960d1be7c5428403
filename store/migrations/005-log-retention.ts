export default {
  // Version 4 is the control API's (another branch); the runner applies versions in list order.
  version: 5,
  name: 'log-retention',
  sql: `
    -- Log bytes retained per attempt (stage and generation): the logs routes serve at most
    -- --max-log-bytes-per-attempt of whole lines per attempt; once a line would not fit, it and
    -- every later line of that attempt are dropped and the attempt is marked truncated.
    CREATE TABLE workload_log_attempts (
      workload_id TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      stage_id    TEXT NOT NULL,
      generation  INTEGER NOT NULL,
      bytes       INTEGER NOT NULL,
      truncated   INTEGER NOT NULL,
      PRIMARY KEY (workload_id, stage_id, generation)
    ) STRICT;

    -- Lines written before this table existed count as retained, attempts in the order they began.
    INSERT INTO workload_log_attempts (workload_id, stage_id, generation, bytes, truncated)
      SELECT workload_id, stage_id, generation, sum(length(CAST(line AS BLOB)) + 1), 0
      FROM workload_logs GROUP BY workload_id, stage_id, generation ORDER BY min(seq);

    -- GET .../logs reads one attempt's lines in order.
    CREATE INDEX workload_logs_attempt ON workload_logs (workload_id, stage_id, generation, seq);
  `,
};
