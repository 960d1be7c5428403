export default {
  version: 4,
  name: 'control',
  sql: `
    -- Fault rules are data, so tests script them over HTTP. seen counts the matching requests a
    -- live rule has observed (it applies once seen has reached after_count); applied counts its
    -- applications, up to times. seq orders rules by age: when several match, the oldest eligible one applies.
    CREATE TABLE faults (
      seq           INTEGER PRIMARY KEY,
      id            TEXT NOT NULL UNIQUE,
      tenant_id     TEXT NOT NULL REFERENCES tenants(id),
      method        TEXT,
      path          TEXT NOT NULL,
      times         INTEGER NOT NULL CHECK (times >= 1),
      after_count   INTEGER NOT NULL CHECK (after_count >= 0),
      seen          INTEGER NOT NULL DEFAULT 0,
      applied       INTEGER NOT NULL DEFAULT 0 CHECK (applied <= times),
      action        TEXT NOT NULL,
      source        TEXT NOT NULL CHECK (source IN ('api', 'scenario')),
      created_at_ms INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX faults_by_tenant ON faults (tenant_id, seq);

    -- What each tenant's /v1 clients sent: a ring of the newest rows per tenant. seq counts per
    -- tenant so eviction is one range delete; id (AUTOINCREMENT) is never reused on the wire.
    CREATE TABLE request_journal (
      id              INTEGER PRIMARY KEY AUTOINCREMENT,
      tenant_id       TEXT NOT NULL REFERENCES tenants(id),
      seq             INTEGER NOT NULL,
      at_ms           INTEGER NOT NULL,
      wall_ms         INTEGER NOT NULL,
      method          TEXT NOT NULL,
      path            TEXT NOT NULL,
      query           TEXT NOT NULL,
      status          INTEGER,
      request_id      TEXT NOT NULL,
      idempotency_key TEXT,
      replayed        INTEGER NOT NULL,
      fault           TEXT,
      fault_id        TEXT,
      body            TEXT,
      body_json       INTEGER NOT NULL,
      body_bytes      INTEGER NOT NULL,
      body_truncated  INTEGER NOT NULL,
      duration_ms     REAL NOT NULL,
      UNIQUE (tenant_id, seq)
    ) STRICT;

    -- Which version of its scenario-file entry a tenant was given, so a restart with the same
    -- file applies nothing twice.
    CREATE TABLE scenario_applied (
      tenant_id     TEXT PRIMARY KEY REFERENCES tenants(id),
      entry_sha256  TEXT NOT NULL,
      applied_at_ms INTEGER NOT NULL
    ) STRICT;
  `,
};
