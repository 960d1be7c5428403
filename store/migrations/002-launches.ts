export default {
  version: 2,
  name: 'launches',
  sql: `
    -- A key admits one request per (tenant, scope, key). Only successful admissions are stored, with the exact bytes answered.
    CREATE TABLE idempotency_keys (
      tenant_id     TEXT NOT NULL REFERENCES tenants(id),
      scope         TEXT NOT NULL,
      key           TEXT NOT NULL,
      fingerprint   TEXT NOT NULL,
      status        INTEGER NOT NULL,
      body          TEXT NOT NULL,
      workload_id   TEXT,
      created_at_ms INTEGER NOT NULL,
      expires_at_ms INTEGER NOT NULL,
      PRIMARY KEY (tenant_id, scope, key)
    ) STRICT;

    -- A workload's submitted payload and simulation spec never change; the columns after
    -- materialised_to_ms hold what the simulator has materialised up to that virtual time.
    CREATE TABLE workloads (
      id                 TEXT PRIMARY KEY,
      tenant_id          TEXT NOT NULL REFERENCES tenants(id),
      kind               TEXT NOT NULL CHECK (kind IN ('recipe', 'custom')),
      name               TEXT,
      payload            TEXT NOT NULL,
      spec               TEXT NOT NULL,
      estimated_cost_usd REAL NOT NULL,
      revision           INTEGER NOT NULL DEFAULT 1,
      created_at_ms      INTEGER NOT NULL,
      materialised_to_ms INTEGER NOT NULL,
      status             TEXT NOT NULL,
      updated_at_ms      INTEGER NOT NULL,
      spend_usd          REAL NOT NULL DEFAULT 0,
      generation         INTEGER NOT NULL DEFAULT 0
    ) STRICT;
    CREATE INDEX workloads_by_tenant ON workloads (tenant_id, created_at_ms DESC, id DESC);

    -- This tenant's view of a recipe's availability (PATCH /_mock/recipes/{id}).
    CREATE TABLE recipe_overrides (
      tenant_id          TEXT NOT NULL REFERENCES tenants(id),
      recipe_id          TEXT NOT NULL,
      available          INTEGER NOT NULL,
      unavailable_reason TEXT,
      PRIMARY KEY (tenant_id, recipe_id)
    ) STRICT;

    -- PUT /_mock/budget: a monthly cap that admission checks estimates against.
    CREATE TABLE budgets (
      tenant_id             TEXT PRIMARY KEY REFERENCES tenants(id),
      monthly_spend_cap_usd REAL NOT NULL,
      month_to_date_usd     REAL NOT NULL
    ) STRICT;
  `,
};
