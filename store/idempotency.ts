import type { Db } from './db.js';
import { idempotencyEntry, NOT_CACHED, type TenantCache } from './tenant-cache.js';

/** A keyed admission: what made the request "the same", and the workload it admitted. */
export interface IdempotencyRecord {
  fingerprint: string;
  workloadId: string;
  createdAtMs: number;
  expiresAtMs: number;
}

export function createIdempotencyStore(db: Db, cache: TenantCache) {
  const find = db.prepare<[string, string, string], IdempotencyRecord>(
    `SELECT fingerprint, workload_id AS workloadId, created_at_ms AS createdAtMs, expires_at_ms AS expiresAtMs
     FROM idempotency_keys WHERE tenant_id = ? AND scope = ? AND key = ?`,
  );
  const save = db.prepare(
    `INSERT OR REPLACE INTO idempotency_keys
       (tenant_id, scope, key, fingerprint, workload_id, created_at_ms, expires_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  return {
    find(tenantId: string, scope: string, key: string): IdempotencyRecord | undefined {
      return cache.read(tenantId, idempotencyEntry(scope, key), () => find.get(tenantId, scope, key));
    },
    /**
     * What memory knows of the key without a statement: its record, or null when it knows there is
     * none; undefined when only the file knows. No object per call: a replay's whole path is this.
     */
    cached(tenantId: string, scope: string, key: string): IdempotencyRecord | null | undefined {
      const known = cache.peek<IdempotencyRecord | undefined>(tenantId, idempotencyEntry(scope, key));
      return known === NOT_CACHED ? undefined : (known ?? null);
    },
    /** Replaces an expired record under the same key. */
    save(tenantId: string, scope: string, key: string, r: IdempotencyRecord): void {
      save.run(tenantId, scope, key, r.fingerprint, r.workloadId, r.createdAtMs, r.expiresAtMs);
    },
  };
}
