export default {
  version: 13,
  name: 'workload-rules',
  sql: `
    -- What a test scripts to happen to workloads not launched yet (docs/control-api.md, Workload
    -- rules): the rule as POST /_mock/workload-rules took it, and how many matching workloads it
    -- has seen, which decides which one its nth binds.
    CREATE TABLE workload_rules (
      seq           INTEGER PRIMARY KEY,
      id            TEXT NOT NULL UNIQUE,
      tenant_id     TEXT NOT NULL REFERENCES tenants(id),
      match         TEXT NOT NULL,
      at            TEXT NOT NULL,
      action        TEXT NOT NULL,
      source        TEXT NOT NULL CHECK (source IN ('api', 'scenario')),
      matched       INTEGER NOT NULL DEFAULT 0,
      created_at_ms INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX workload_rules_by_tenant ON workload_rules (tenant_id, seq);

    -- A rule fixed into a workload at its admission, with its own copy of the trigger and the
    -- action (later changes to the tenant's rules leave it as it was), and what became of it.
    CREATE TABLE workload_rule_bindings (
      tenant_id     TEXT NOT NULL REFERENCES tenants(id),
      workload_id   TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      rule_id       TEXT NOT NULL,
      position      INTEGER NOT NULL,
      at            TEXT NOT NULL,
      action        TEXT NOT NULL,
      reads         INTEGER NOT NULL DEFAULT 0,
      state         TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'applied', 'skipped')),
      settled_at_ms INTEGER,
      note          TEXT,
      PRIMARY KEY (workload_id, rule_id)
    ) STRICT;
    CREATE INDEX workload_rule_bindings_by_rule ON workload_rule_bindings (rule_id);
    CREATE INDEX workload_rule_bindings_pending ON workload_rule_bindings (tenant_id) WHERE state = 'pending';
  `,
};
