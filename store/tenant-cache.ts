import type { Db } from './db.js';

/**
 * A tenant's rows that nearly every /v1 request reads and only /_mock calls change, and the
 * committed idempotency records that retries of one key read again and again.
 */
type CachedRows = 'clock' | 'faults' | 'overrides' | 'budget' | `idempotency ${string}`;

/** Tenants remembered at most; a test run makes a tenant per key, so the map must not grow forever. */
const MAX_TENANTS = 10_000;
/** Entries per tenant at most: one per replayed idempotency key beyond the three fixed ones. */
const MAX_ENTRIES = 1_000;

/**
 * Reading a tenant's clock, live fault rules and recipe overrides cost a statement each, with
 * its file locks, on every request (bench/, profile of GET /v1/rl-recipes), yet tests change them
 * a few times per run; a replayed launch spent most of its store time in its one read of the
 * idempotency record. So they are kept in memory, under three rules: only a value read outside
 * any transaction is kept (inside one, the row may be this transaction's own write, which could
 * still roll back); a missing row (undefined) is never kept; and every store function that writes
 * one of these rows drops the entry (or all the tenant's entries) first. An entry present is
 * therefore the committed row, which no open transaction has written, so transactions read it
 * too (a launch read three of them inside its own). The server is the only writer of its file
 * (one process over one SQLite file), so no other change can go unseen. Cached values are
 * shared: callers must not mutate them.
 */
export function createTenantCache(db: Db) {
  const tenants = new Map<string, Map<CachedRows, unknown>>();
  return {
    read<T>(tenantId: string, rows: CachedRows, load: () => T): T {
      let entries = tenants.get(tenantId);
      if (entries?.has(rows)) return entries.get(rows) as T;
      const value = load();
      if (value === undefined || db.inTransaction) return value;
      if (!entries || entries.size >= MAX_ENTRIES) {
        if (tenants.size >= MAX_TENANTS) tenants.clear();
        tenants.set(tenantId, (entries = new Map()));
      }
      entries.set(rows, value);
      return value;
    },
    /** Call before writing one cached row. */
    forget(tenantId: string, rows: CachedRows): void {
      tenants.get(tenantId)?.delete(rows);
    },
    /** Call before writing any of the tenant's cached rows. */
    drop(tenantId: string): void {
      tenants.delete(tenantId);
    },
  };
}

export type TenantCache = ReturnType<typeof createTenantCache>;
