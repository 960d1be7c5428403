import type { z } from 'zod';
import type { RLRecipeList } from '../../../openapi/rl-recipes.js';
import { Catalog } from '../catalog/index.js';
import type { DomainContext } from '../context.js';
import { catalogAvailability } from './admission.js';

export type RecipeList = z.output<typeof RLRecipeList>;

/** Distinct availability states kept; tests patch a few recipes, nobody patches hundreds. */
const CACHED_STATES = 64;

/**
 * GET /v1/rl-recipes for a tenant. The list depends only on the catalog, fixed for the server's
 * life, and on the tenant's availability overrides, so one list object answers for as long as
 * they stay the same, and for every tenant in the same availability state: the HTTP layer
 * encodes each object once (routes/v1/rl-recipes.ts). Callers must not mutate it.
 */
export function createRecipeLists(deps: DomainContext): (tenantId: string) => RecipeList {
  const byState = new Map<string, RecipeList>();
  // The tenant cache hands out one overrides object until they change, so the list answered last
  // time answers without working out the availability again.
  const lastFor = new WeakMap<object, RecipeList>();

  function listFor(tenantId: string): RecipeList {
    const availability = catalogAvailability(deps, tenantId);
    const state = JSON.stringify(availability);
    let list = byState.get(state);
    if (list === undefined) {
      list = {
        recipes: deps.catalog.recipes.map((recipe, i) => Catalog.descriptor(recipe, availability[i].available, availability[i].reason)),
      };
      if (byState.size >= CACHED_STATES) byState.delete(byState.keys().next().value!);
      byState.set(state, list);
    }
    return list;
  }

  return (tenantId) => {
    const overrides = deps.committed.cached.overrides(tenantId);
    let list = lastFor.get(overrides);
    if (list === undefined) {
      list = listFor(tenantId);
      lastFor.set(overrides, list);
    }
    return list;
  };
}
