import type { DomainContext } from '../context.js';
import { exampleRunOperations } from './example-runs.js';
import { createRecipeLists } from './recipes.js';
import { rlRunOperations } from './rl-runs.js';

/**
 * Managed RL runs: the recipe list, preview and launch with the review token; catalog example
 * runs. Each operation lives beside the rules it applies, so a request enters one file of them.
 */
export function createLaunchService(deps: DomainContext) {
  return {
    /** The catalog's recipes with this tenant's availability; the same object while that stays the same. */
    recipes: createRecipeLists(deps),
    ...rlRunOperations(deps),
    ...exampleRunOperations(deps),
  };
}
