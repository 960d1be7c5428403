export default {
  version: 7,
  name: 'webhooks',
  sql: `
    -- One webhook per tenant, as the real service keeps one per team. The secret is kept to sign deliveries
    -- and never answered by GET. since_ms is the virtual time it was first set: status changes
    -- from then on are delivered; a replacement keeps it, a delete forgets it.
    CREATE TABLE webhooks (
      tenant_id     TEXT PRIMARY KEY REFERENCES tenants(id),
      url           TEXT NOT NULL,
      secret        TEXT NOT NULL,
      enabled       INTEGER NOT NULL,
      since_ms      INTEGER NOT NULL,
      updated_at_ms INTEGER NOT NULL
    ) STRICT;

    -- The outbox: a workload's status change writes its delivery in the transaction that makes
    -- the change, so a crash after the commit still delivers it. body is the exact text signed
    -- and sent on every attempt. due_at_ms (virtual) is set while pending; tries counts the
    -- attempts of the current backoff schedule (a redelivery starts a new one), attempts all.
    CREATE TABLE webhook_deliveries (
      seq           INTEGER PRIMARY KEY,
      id            TEXT NOT NULL UNIQUE,
      tenant_id     TEXT NOT NULL REFERENCES tenants(id),
      workload_id   TEXT NOT NULL REFERENCES workloads(id) ON DELETE CASCADE,
      type          TEXT NOT NULL,
      body          TEXT NOT NULL,
      created_at_ms INTEGER NOT NULL,
      state         TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
      due_at_ms     INTEGER,
      tries         INTEGER NOT NULL DEFAULT 0,
      attempts      INTEGER NOT NULL DEFAULT 0,
      last_error    TEXT
    ) STRICT;
    -- The worker reads the oldest pending delivery of each workload (deliveries go in order).
    CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (workload_id, seq) WHERE state = 'pending';
    CREATE INDEX webhook_deliveries_by_tenant ON webhook_deliveries (tenant_id, seq);

    -- Every attempt of a delivery, for GET /_mock/webhooks/deliveries. at_ms is the virtual time
    -- it ended; next_retry_at_ms the virtual time of the retry it scheduled, if any.
    CREATE TABLE webhook_attempts (
      delivery_seq     INTEGER NOT NULL REFERENCES webhook_deliveries(seq) ON DELETE CASCADE,
      attempt          INTEGER NOT NULL,
      url              TEXT NOT NULL,
      wall_ms          INTEGER NOT NULL,
      at_ms            INTEGER NOT NULL,
      status_code      INTEGER,
      error            TEXT,
      latency_ms       REAL NOT NULL,
      next_retry_at_ms INTEGER,
      fault_id         TEXT,
      PRIMARY KEY (delivery_seq, attempt)
    ) STRICT;
  `,
};
