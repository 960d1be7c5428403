export default {
  version: 10,
  name: 'connections',
  sql: `
    -- A tenant's secrets, one row per name with its current version. The value itself is kept
    -- nowhere: nothing in the mock reads it back, so no answer, journal row, log line or copy
    -- of this file can hold it. A put on an existing name moves version and created_at; a
    -- delete removes the row, so a later put of the name starts a new secret (a new id).
    CREATE TABLE secrets (
      seq           INTEGER PRIMARY KEY,
      id            TEXT NOT NULL UNIQUE,
      tenant_id     TEXT NOT NULL REFERENCES tenants(id),
      name          TEXT NOT NULL,
      version       INTEGER NOT NULL CHECK (version >= 1),
      created_at_ms INTEGER NOT NULL,
      UNIQUE (tenant_id, name)
    ) STRICT;

    -- Connections pin a secret id and version at creation: once the secret has moved on (a put
    -- or a delete), the connection is stale. A deleted connection's row goes.
    CREATE TABLE connections (
      seq            INTEGER PRIMARY KEY,
      id             TEXT NOT NULL UNIQUE,
      tenant_id      TEXT NOT NULL REFERENCES tenants(id),
      name           TEXT NOT NULL,
      kind           TEXT NOT NULL CHECK (kind IN ('postgres', 'neon', 'supabase', 'wandb')),
      secret_id      TEXT NOT NULL,
      secret_version INTEGER NOT NULL CHECK (secret_version >= 1),
      scope          TEXT NOT NULL CHECK (scope IN ('read', 'write', 'readwrite')),
      region         TEXT,
      branch         TEXT,
      entity         TEXT,
      project        TEXT,
      live_mode      INTEGER NOT NULL CHECK (live_mode IN (0, 1)),
      egress_hosts   TEXT NOT NULL,
      verified_at_ms INTEGER NOT NULL,
      created_at_ms  INTEGER NOT NULL,
      created_by     TEXT NOT NULL,
      UNIQUE (tenant_id, name)
    ) STRICT;

    -- The connection a workload was admitted with; it cannot be deleted while that workload runs.
    -- No reference to connections: an ended workload keeps the id of a connection deleted since.
    CREATE TABLE workload_connections (
      workload_id   TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      connection_id TEXT NOT NULL,
      PRIMARY KEY (workload_id, connection_id)
    ) STRICT;
    CREATE INDEX workload_connections_by_connection ON workload_connections (connection_id);
  `,
};
