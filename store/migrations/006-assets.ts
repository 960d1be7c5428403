export default {
  version: 6,
  name: 'assets',
  sql: `
    -- Uploaded and imported assets. A deleted asset keeps its row (its contents go): a keyed
    -- upload's key must still answer a conflict after the asset it made is deleted. ready_at_ms
    -- is when an import is, or will be, ready: a connection_query import stays 'importing' here
    -- and reads as ready once the tenant's virtual clock reaches it. sha256 and bytes describe
    -- the contents, fixed when the asset is admitted.
    CREATE TABLE assets (
      seq             INTEGER PRIMARY KEY,
      id              TEXT NOT NULL UNIQUE,
      tenant_id       TEXT NOT NULL REFERENCES tenants(id),
      kind            TEXT NOT NULL CHECK (kind IN ('upload', 'url', 'github', 'huggingface', 'connection_query')),
      name            TEXT NOT NULL,
      state           TEXT NOT NULL CHECK (state IN ('importing', 'ready', 'failed', 'deleted')),
      revision        TEXT NOT NULL,
      sha256          TEXT NOT NULL,
      bytes           INTEGER NOT NULL CHECK (bytes >= 0),
      created_at_ms   INTEGER NOT NULL,
      ready_at_ms     INTEGER,
      deleted_at_ms   INTEGER,
      error           TEXT,
      archive         TEXT CHECK (archive IN ('tar', 'tar.gz', 'zip')),
      files           TEXT,
      idempotency_key TEXT,
      query_hash      TEXT,
      export          TEXT,
      UNIQUE (tenant_id, idempotency_key)
    ) STRICT;
    CREATE INDEX assets_by_tenant ON assets (tenant_id, seq);

    -- The bytes, in parts, so no single value nears SQLite's length limit.
    CREATE TABLE asset_contents (
      asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      part     INTEGER NOT NULL,
      data     BLOB NOT NULL,
      PRIMARY KEY (asset_id, part)
    ) STRICT;

    -- The assets a workload names; it holds them (they cannot be deleted) until it ends.
    CREATE TABLE workload_assets (
      workload_id TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      asset_id    TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
      PRIMARY KEY (workload_id, asset_id)
    ) STRICT;
    CREATE INDEX workload_assets_by_asset ON workload_assets (asset_id);
  `,
};
