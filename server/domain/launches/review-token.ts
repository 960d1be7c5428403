import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../canonical.js';
import type { SecretName } from '../../../store/settings.js';
import type { CatalogRecipe } from '../catalog/index.js';

/** The server secret review tokens are keyed by. */
export const REVIEW_SECRET: SecretName = 'review-token';

/** The recipe's part of what was reviewed, as canonical JSON: the same text for every token of the recipe. */
const reviewedRecipes = new WeakMap<CatalogRecipe, string>();

function reviewedRecipe(recipe: CatalogRecipe): string {
  let json = reviewedRecipes.get(recipe);
  if (json === undefined) {
    json = canonicalJson({ id: recipe.id, version: recipe.version, model_revision: recipe.model_revision, runtime: recipe.runtime });
    reviewedRecipes.set(recipe, json);
  }
  return json;
}

/**
 * The review token proves a launch is what was previewed: an HMAC over exactly what the user
 * reviewed: their tenant, the normalised configuration, and the recipe version with its runtime.
 * Keyed by a secret stored in the database, so tokens survive restarts but cannot be forged by a
 * client. The text is the canonical JSON of `{ tenant, configuration, recipe }`, written from its
 * parts in canonical key order: the configuration's is `configurationJson` (its canonicalJson,
 * which the launch also hashes into config_sha256), the recipe's is written once per recipe.
 */
export function reviewToken(secret: Buffer, tenantId: string, configurationJson: string, recipe: CatalogRecipe): string {
  const reviewed = `{"configuration":${configurationJson},"recipe":${reviewedRecipe(recipe)},"tenant":${canonicalJson(tenantId)}}`;
  return createHmac('sha256', secret).update(reviewed).digest('hex');
}

/** Constant-time comparison of two hex tokens. */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
