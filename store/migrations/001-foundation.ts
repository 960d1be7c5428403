export default {
  version: 1,
  name: 'foundation',
  sql: `
    CREATE TABLE server_settings (
      name  TEXT PRIMARY KEY,
      value TEXT NOT NULL
    ) STRICT;

    -- clock_mode / clock_scale are NULL while the tenant follows the configured defaults.
    CREATE TABLE tenants (
      id                      TEXT PRIMARY KEY,
      created_at_ms           INTEGER NOT NULL,
      clock_mode              TEXT CHECK (clock_mode IN ('realtime', 'manual')),
      clock_scale             REAL CHECK (clock_scale > 0),
      clock_anchor_wall_ms    INTEGER NOT NULL,
      clock_anchor_virtual_ms INTEGER NOT NULL
    ) STRICT;

    -- Keys are stored as SHA-256 hashes only.
    CREATE TABLE api_keys (
      key_hash      TEXT PRIMARY KEY,
      key_id        TEXT NOT NULL UNIQUE,
      tenant_id     TEXT NOT NULL REFERENCES tenants(id),
      created_at_ms INTEGER NOT NULL
    ) STRICT;
  `,
};
