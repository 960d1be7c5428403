export default {
  version: 8,
  name: 'levers',
  sql: `
    -- Per-tenant simulation and review levers (/_mock/levers, scenario files). No row: defaults.
    -- unrecoverable_error_rate NULL leaves each recipe's catalog value.
    CREATE TABLE tenant_levers (
      tenant_id                TEXT PRIMARY KEY REFERENCES tenants(id),
      review_expiry            INTEGER NOT NULL CHECK (review_expiry IN (0, 1)),
      unrecoverable_error_rate REAL CHECK (unrecoverable_error_rate BETWEEN 0 AND 1)
    ) STRICT;

    -- When a preview made while review_expiry was on stops being launchable (its valid_until).
    -- A token is deterministic per reviewed configuration, so a new preview moves its expiry.
    CREATE TABLE reviews (
      tenant_id      TEXT NOT NULL REFERENCES tenants(id),
      token          TEXT NOT NULL,
      valid_until_ms INTEGER NOT NULL,
      PRIMARY KEY (tenant_id, token)
    ) STRICT;
  `,
};
