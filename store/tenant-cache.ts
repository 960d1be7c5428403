import type { Db } from './db.js';

/** A tenant's rows that nearly every /v1 request reads and only /_mock calls change. */
export type CachedRows = 'clock' | 'faults' | 'overrides';

/** Tenants remembered at most; a test run makes a tenant per key, so the map must not grow forever. */
const MAX_TENANTS = 10_000;

/**
 * Reading a tenant's clock, live fault rules and recipe overrides cost a statement each, with
 * its file locks, on every request (bench/, profile of GET /v1/rl-recipes), yet tests change them
 * a few times per run. So they are kept in memory, under two rules: only a value read outside
 * any transaction is kept (inside one, the row may be this transaction's own write, which could
 * still roll back), and every store function that writes one of these tables drops the tenant's
 * entries. The server is the only writer of its file (one process over one SQLite file), so no
 * other change can go unseen. Cached values are shared: callers must not mutate them.
 */
export function createTenantCache(db: Db) {
  const tenants = new Map<string, Map<CachedRows, unknown>>();
  return {
    read<T>(tenantId: string, rows: CachedRows, load: () => T): T {
      if (db.inTransaction) return load();
      let entries = tenants.get(tenantId);
      if (entries?.has(rows)) return entries.get(rows) as T;
      const value = load();
      if (!entries) {
        if (tenants.size >= MAX_TENANTS) tenants.clear();
        tenants.set(tenantId, (entries = new Map()));
      }
      entries.set(rows, value);
      return value;
    },
    /** Call before writing any of the tenant's cached rows. */
    drop(tenantId: string): void {
      tenants.delete(tenantId);
    },
  };
}

export type TenantCache = ReturnType<typeof createTenantCache>;
