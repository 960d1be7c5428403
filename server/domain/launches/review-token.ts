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

/** Tokens kept by what they sign: a launch signs what its preview signed a moment before. */
const SIGNED_LIMIT = 1024;

/**
 * The review token proves a launch is what was previewed: an HMAC over exactly what the user
 * reviewed: their tenant, the normalised configuration, and the recipe version with its runtime.
 * Keyed by a secret stored in the database (which never changes while the store is open), so
 * tokens survive restarts but cannot be forged by a client. The text is the canonical JSON of
 * `{ tenant, configuration, recipe }`, written from its parts in canonical key order: the
 * configuration's is `configurationJson` (its canonicalJson, which the launch also hashes into
 * config_sha256), the recipe's is written once per recipe.
 *
 * The HMAC was the largest of a fresh launch's own costs after SQLite's (bench/, launch profile),
 * so the last SIGNED_LIMIT tokens are kept by their text, the oldest given up first: the launch
 * that follows a preview of the same configuration finds its token signed already.
 */
export function createReviewTokens(secret: Buffer, limit = SIGNED_LIMIT) {
  const signed = new Map<string, string>();
  return {
    sign(tenantId: string, configurationJson: string, recipe: CatalogRecipe): string {
      const reviewed = `{"configuration":${configurationJson},"recipe":${reviewedRecipe(recipe)},"tenant":${canonicalJson(tenantId)}}`;
      let token = signed.get(reviewed);
      if (token === undefined) {
        token = createHmac('sha256', secret).update(reviewed).digest('hex');
        if (signed.size >= limit) signed.delete(signed.keys().next().value!);
        signed.set(reviewed, token);
      }
      return token;
    },
  };
}

export type ReviewTokens = ReturnType<typeof createReviewTokens>;

/** Constant-time comparison of two hex tokens. */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
