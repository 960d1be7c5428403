import type { z } from 'zod';
import type { BudgetUpdate, JournalMatch, JournalQuery, LeversUpdate, RecipeOverrideUpdate } from '../../../openapi/mock.js';
import type { RLRecipeDescriptor } from '../../../openapi/rl-recipes.js';
import type { FaultRow } from '../../../store/faults.js';
import type { ResetCounts } from '../../../store/reset.js';
import type { KeyMove } from '../../../store/tenants.js';
import type { Budget } from '../../../store/admission.js';
import { Catalog } from '../catalog/index.js';
import type { ClockMode, ClockView } from '../clock-view.js';
import type { DomainContext } from '../context.js';
import { notFound } from '../errors.js';
import { recipeAvailability, setBudget, setRecipeOverride } from '../launches/admission.js';
import { addFault, type FaultRuleInput } from './faults.js';
import { listRequests, matchRequests, type JournalMatches, type JournalPage } from './journal.js';
import { leversView, setLevers } from './levers.js';
import { applyScenario, type Scenario } from './scenarios.js';
import { applyKeyMapping, registerKey, type Tenant } from './tenants.js';
import { advanceUntil, UNTIL_MAX_SECONDS, type UntilCondition } from './until.js';

/**
 * The mock's own levers and plumbing, as the /_mock routes reach them: keys, the clock, fault
 * rules, the request journal's reads, the admission levers, reset, scenarios and readiness. What
 * every API request asks of the domain is requests.ts's. Each method is one operation in its own
 * transaction (a single statement is one by itself).
 */
export function createControlService(
  deps: Pick<DomainContext, 'config' | 'committed' | 'registerKey' | 'moveKeys' | 'journal' | 'ping' | 'clock' | 'catalog' | 'units'>,
) {
  const { committed, clock, units, catalog } = deps;

  return {
    /** The tenant of an accepted key, registered on its first use; a 401 DomainError otherwise. */
    registerKey(key: string): Tenant {
      return registerKey(deps, key);
    },

    /** At start: every registered key moved to the tenant the configuration gives it; answers the moves. */
    applyKeyMapping(): KeyMove[] {
      return applyKeyMapping(deps);
    },

    clock(tenantId: string): ClockView {
      return clock.view(tenantId);
    },

    setClock(tenantId: string, mode: ClockMode, scale?: number): ClockView {
      return units.atNow(tenantId, (unit) => unit.setClock(mode, scale));
    },

    /**
     * Moves virtual time forward, then materialises everything that fell due a slice of workloads
     * per transaction, the other tenants' requests running in between (docs/control-api.md says
     * what a read sees meanwhile); answers the new now once every workload is materialised to it.
     */
    async advanceClock(tenantId: string, seconds: number): Promise<number> {
      const nowMs = units.atNow(tenantId, (unit) => unit.advanceClock(seconds).nowMs);
      await units.everyWorkloadInSlices(tenantId);
      return nowMs;
    },

    /**
     * Moves virtual time to the first scheduled change at which the condition holds (until.ts),
     * in one transaction that materialises only what the condition needs: that is what lets a 409
     * move nothing. The rest falls due in slices, as after any advance; answers the new now once
     * every workload is materialised to it.
     */
    async advanceClockUntil(tenantId: string, condition: UntilCondition, maxSeconds = UNTIL_MAX_SECONDS): Promise<number> {
      // Idle asks every run when it ends: worked out beforehand, in slices, the unit has only to look.
      if (condition === 'idle') await units.endsInSlices(tenantId);
      const nowMs = units.atNow(tenantId, (unit) => advanceUntil(unit, condition, maxSeconds));
      await units.everyWorkloadInSlices(tenantId);
      return nowMs;
    },

    addFault(tenantId: string, rule: FaultRuleInput): FaultRow {
      return units.atNow(tenantId, (unit) => addFault(unit, rule, 'api'));
    },

    /** Every rule of the tenant, oldest first, exhausted ones included. */
    faults(tenantId: string): FaultRow[] {
      return committed.faults.list(tenantId);
    },

    removeFault(tenantId: string, id: string): void {
      units.atNow(tenantId, (unit) => {
        if (!unit.tables.faults.delete(tenantId, id)) throw notFound(`fault ${id}`);
      });
    },

    clearFaults(tenantId: string): void {
      units.atNow(tenantId, (unit) => unit.tables.faults.clear(tenantId));
    },

    /** Newest first, with how many rows were evicted; paths match as fault rules match them. */
    requests(tenantId: string, query: z.output<typeof JournalQuery>): JournalPage {
      return listRequests(deps, tenantId, query);
    },

    /** The rows that match an expectation, or the nearest and what differs in each. */
    matchRequests(tenantId: string, expected: z.output<typeof JournalMatch>): JournalMatches {
      return matchRequests(deps, tenantId, expected);
    },

    clearRequests(tenantId: string): void {
      deps.journal.clear(tenantId);
    },

    /** This tenant's view of a recipe's availability; answers the recipe as it now lists. */
    overrideRecipe(tenantId: string, recipeId: string, update: z.output<typeof RecipeOverrideUpdate>): z.output<typeof RLRecipeDescriptor> {
      const recipe = catalog.recipe(recipeId);
      if (!recipe) throw notFound(`recipe ${recipeId}`);
      units.atNow(tenantId, (unit) => setRecipeOverride(unit, recipe.id, update));
      // Read back outside any transaction, so the tenant cache keeps it for the next list.
      const availability = recipeAvailability(deps, tenantId, recipe);
      return Catalog.descriptor(recipe, availability.available, availability.reason);
    },

    setBudget(tenantId: string, update: z.output<typeof BudgetUpdate>): Budget {
      return units.atNow(tenantId, (unit) => setBudget(unit, update));
    },

    /** The review and simulation levers (PUT /_mock/levers); answers all of them. */
    setLevers(tenantId: string, update: z.output<typeof LeversUpdate>) {
      return leversView(units.atNow(tenantId, (unit) => setLevers(unit, update)));
    },

    removeBudget(tenantId: string): void {
      units.atNow(tenantId, (unit) => unit.tables.admission.deleteBudget(tenantId));
    },

    /** Deletes everything the tenant owns and puts its clock back to the defaults; answers the counts. */
    reset(tenantId: string): ResetCounts {
      return units.atNow(tenantId, (unit) => {
        const counts = unit.deleteTenantData();
        unit.resetClock();
        return counts;
      });
    },

    /** Applies a loaded scenario file at start; answers the tenants it applied an entry to. */
    applyScenario(scenario: Scenario): string[] {
      return applyScenario(deps, scenario);
    },

    /** Throws when the database does not answer. */
    ready(): void {
      deps.ping();
    },
  };
}

