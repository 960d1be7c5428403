import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../canonical.js';
import type { SecretName } from '../../../store/settings.js';
import type { CatalogRecipe } from '../catalog/index.js';

/** The server secret review tokens are keyed by. */
export const REVIEW_SECRET: SecretName = 'review-token';

/**
 * The review token proves a launch is what was previewed: an HMAC over exactly what the user
 * reviewed: their tenant, the normalised configuration, and the recipe version with its runtime.
 * Keyed by a secret stored in the database, so tokens survive restarts but cannot be forged by a
 * client.
 */
export function reviewToken(secret: Buffer, tenantId: string, configuration: object, recipe: CatalogRecipe): string {
  const reviewed = {
    tenant: tenantId,
    configuration,
    recipe: { id: recipe.id, version: recipe.version, model_revision: recipe.model_revision, runtime: recipe.runtime },
  };
  return createHmac('sha256', secret).update(canonicalJson(reviewed)).digest('hex');
}

/** Constant-time comparison of two hex tokens. */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
