import type { Db } from './db.js';

export interface RecipeOverride {
  available: boolean;
  unavailableReason: string | null;
}

export interface Budget {
  monthlySpendCapUsd: number;
  monthToDateUsd: number;
}

/** Spend of this tenant's workloads that a budget check must count. */
interface BudgetUsage {
  /** Spent so far by workloads still running. */
  accruingUsd: number;
  /** What running workloads are still expected to spend (estimate minus spend). */
  inFlightCommittedUsd: number;
  /** Spent by workloads that have ended. */
  settledUsd: number;
}

const TERMINAL = "('completed', 'failed', 'cancelled')";

export function createAdmissionStore(db: Db) {
  const setOverride = db.prepare(
    'INSERT OR REPLACE INTO recipe_overrides (tenant_id, recipe_id, available, unavailable_reason) VALUES (?, ?, ?, ?)',
  );
  const setBudget = db.prepare('INSERT OR REPLACE INTO budgets (tenant_id, monthly_spend_cap_usd, month_to_date_usd) VALUES (?, ?, ?)');
  const deleteBudget = db.prepare('DELETE FROM budgets WHERE tenant_id = ?');
  const usage = db.prepare<[string], BudgetUsage>(
    `SELECT
       coalesce(sum(CASE WHEN status NOT IN ${TERMINAL} THEN spend_usd END), 0) AS accruingUsd,
       coalesce(sum(CASE WHEN status NOT IN ${TERMINAL} THEN max(0, estimated_cost_usd - spend_usd) END), 0) AS inFlightCommittedUsd,
       coalesce(sum(CASE WHEN status IN ${TERMINAL} THEN spend_usd END), 0) AS settledUsd
     FROM workloads WHERE tenant_id = ?`,
  );
  return {
    setOverride(tenantId: string, recipeId: string, o: RecipeOverride): void {
      setOverride.run(tenantId, recipeId, o.available ? 1 : 0, o.unavailableReason);
    },
    setBudget(tenantId: string, b: Budget): void {
      setBudget.run(tenantId, b.monthlySpendCapUsd, b.monthToDateUsd);
    },
    deleteBudget(tenantId: string): void {
      deleteBudget.run(tenantId);
    },
    usage(tenantId: string): BudgetUsage {
      return usage.get(tenantId)!;
    },
  };
}

export interface Levers {
  reviewExpiry: boolean;
  /** Null: each recipe's catalog value. */
  unrecoverableErrorRate: number | null;
}

export function createLeverStore(db: Db) {
  const put = db.prepare('INSERT OR REPLACE INTO tenant_levers (tenant_id, review_expiry, unrecoverable_error_rate) VALUES (?, ?, ?)');
  const putReview = db.prepare('INSERT OR REPLACE INTO reviews (tenant_id, token, valid_until_ms) VALUES (?, ?, ?)');
  const getReview = db.prepare<[string, string], { valid_until_ms: number }>('SELECT valid_until_ms FROM reviews WHERE tenant_id = ? AND token = ?');
  return {
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
