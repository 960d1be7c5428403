import type { z } from 'zod';
import type { BudgetUpdate, RecipeOverrideUpdate } from '../../../openapi/mock.js';
import type { Budget, RecipeOverride } from '../../../store/admission.js';
import type { CatalogRecipe } from '../catalog/index.js';
import { DomainError } from '../errors.js';
import type { DomainContext } from '../context.js';
import type { TenantUnit } from '../unit.js';

export interface Availability {
  available: boolean;
  reason?: string;
}

/** The catalog's availability, unless the tenant overrode it (PATCH /_mock/recipes/{id}). */
function availabilityOf(recipe: CatalogRecipe, override: RecipeOverride | undefined): Availability {
  if (override) {
    return override.available
      ? { available: true }
      : { available: false, reason: override.unavailableReason ?? 'launches of this recipe are paused' };
  }
  return recipe.available ? { available: true } : { available: false, reason: recipe.unavailable_reason };
}

export function recipeAvailability(deps: Pick<DomainContext, 'committed'>, tenantId: string, recipe: CatalogRecipe): Availability {
  return availabilityOf(recipe, deps.committed.cached.overrides(tenantId)[recipe.id]);
}

/**
 * The admission levers, as PATCH /_mock/recipes/{id}, PUT /_mock/budget and the scenario files
 * set them, in the unit given.
 */
export function setRecipeOverride(unit: TenantUnit, recipeId: string, update: z.output<typeof RecipeOverrideUpdate>): void {
  unit.tables.admission.setOverride(unit.tenantId, recipeId, { available: update.available, unavailableReason: update.unavailable_reason ?? null });
}

export function setBudget(unit: TenantUnit, update: z.output<typeof BudgetUpdate>): Budget {
  const budget = { monthlySpendCapUsd: update.monthly_spend_cap_usd, monthToDateUsd: update.month_to_date_usd ?? 0 };
  unit.tables.admission.setBudget(unit.tenantId, budget);
  return budget;
}

/** Every catalog recipe's availability for the tenant, in catalog order, from one read. */
export function catalogAvailability(deps: Pick<DomainContext, 'committed' | 'catalog'>, tenantId: string): Availability[] {
  const overrides = deps.committed.cached.overrides(tenantId);
  return deps.catalog.recipes.map((recipe) => availabilityOf(recipe, overrides[recipe.id]));
}

const usd = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * A budgeted tenant's headroom counts what every running workload has spent by now: they are
 * brought up to now in slices before the admission's unit, the other tenants' requests running
 * between them, so that unit (one transaction) has only what fell due since to write.
 *
 * Materialising every workload is the price, and it stays: spend by now is each run's timeline
 * read at now, with the workload rules due by then applied (a recovery or a failure changes the
 * timeline, and applies only by writing its intervention), so a read-only sum would need every
 * row and its run anyway, and the rules a second time, read-only. With the clock standing still,
 * so that nothing falls due, the cost is reading every row and its timeline: the bench's `budget`
 * figure (docs/performance.md) times a launch of a tenant with 1,000 unsettled workloads with a
 * budget and without.
 */
export async function budgetReady(deps: Pick<DomainContext, 'committed' | 'units'>, tenantId: string): Promise<void> {
  if (deps.committed.cached.budget(tenantId)) await deps.units.everyWorkloadInSlices(tenantId);
}

/**
 * The 402 a budgeted tenant gets when an estimate does not fit the headroom, with the arithmetic
 * fields the SDK exposes on its error. Headroom = cap − month-to-date (the configured
 * figure plus what ended workloads spent) − what running workloads spent − what they are still
 * expected to spend.
 */
export function budgetRefusal(unit: TenantUnit, estimatedCostUsd: number): DomainError | undefined {
  const budget = unit.tables.cached.budget(unit.tenantId);
  if (!budget) return undefined;
  // The headroom counts what running workloads have spent by now.
  unit.materialiseEveryWorkload();
  const use = unit.tables.admission.usage(unit.tenantId);
  const monthToDate = budget.monthToDateUsd + use.settledUsd;
  const headroom = budget.monthlySpendCapUsd - monthToDate - use.accruingUsd - use.inFlightCommittedUsd;
  if (estimatedCostUsd <= headroom) return undefined;
  return new DomainError(
    'over_budget',
    'budget_exceeded',
    `this run's estimated cost of $${estimatedCostUsd.toFixed(2)} exceeds the remaining monthly headroom of $${Math.max(0, headroom).toFixed(2)}; raise the cap or wait for running workloads to finish`,
    {
      monthly_spend_cap_usd: usd(budget.monthlySpendCapUsd),
      month_to_date_usd: usd(monthToDate),
      estimated_cost_usd: usd(estimatedCostUsd),
      accruing_usd: usd(use.accruingUsd),
      in_flight_committed_usd: usd(use.inFlightCommittedUsd),
      remaining_headroom_usd: usd(headroom),
    },
  );
}
