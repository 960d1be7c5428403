import type { Db } from './db.js';
import type { TenantCache } from './tenant-cache.js';

export interface Levers {
  reviewExpiry: boolean;
  /** Null: each recipe's catalog value. */
  unrecoverableErrorRate: number | null;
}

const DEFAULT_LEVERS: Levers = { reviewExpiry: false, unrecoverableErrorRate: null };

type LeverRow = { review_expiry: number; unrecoverable_error_rate: number | null };

export function createLeverStore(db: Db, cache: TenantCache) {
  const get = db.prepare<[string], LeverRow>('SELECT review_expiry, unrecoverable_error_rate FROM tenant_levers WHERE tenant_id = ?');
  const put = db.prepare('INSERT OR REPLACE INTO tenant_levers (tenant_id, review_expiry, unrecoverable_error_rate) VALUES (?, ?, ?)');
  const putReview = db.prepare('INSERT OR REPLACE INTO reviews (tenant_id, token, valid_until_ms) VALUES (?, ?, ?)');
  const getReview = db.prepare<[string, string], { valid_until_ms: number }>('SELECT valid_until_ms FROM reviews WHERE tenant_id = ? AND token = ?');
  return {
    /** Read by every preview and launch, set by /_mock: kept in the tenant cache. */
    levers(tenantId: string): Levers {
      return cache.read(tenantId, 'levers', () => {
        const row = get.get(tenantId);
        return row ? { reviewExpiry: row.review_expiry === 1, unrecoverableErrorRate: row.unrecoverable_error_rate } : DEFAULT_LEVERS;
      });
    },
    setLevers(tenantId: string, levers: Levers): void {
      put.run(tenantId, levers.reviewExpiry ? 1 : 0, levers.unrecoverableErrorRate);
    },
    rememberReview(tenantId: string, token: string, validUntilMs: number): void {
      putReview.run(tenantId, token, validUntilMs);
    },
    /** The valid_until of the token's latest expiring preview, or null when none was remembered. */
    reviewValidUntil(tenantId: string, token: string): number | null {
      return getReview.get(tenantId, token)?.valid_until_ms ?? null;
    },
  };
}
