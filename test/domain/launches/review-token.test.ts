import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import t from 'tap';
import { canonicalJson } from '../../../server/domain/canonical.js';
import { loadCatalog } from '../../../server/domain/catalog/index.js';
import { reviewToken } from '../../../server/domain/launches/review-token.js';

const catalog = loadCatalog();
const secret = Buffer.alloc(32, 7);

/** The token as the contract of the mock defines it: an HMAC over the whole reviewed value's canonical JSON. */
function signedWhole(tenant: string, configuration: object, recipe: (typeof catalog.recipes)[number]): string {
  const reviewed = {
    tenant,
    configuration,
    recipe: { id: recipe.id, version: recipe.version, model_revision: recipe.model_revision, runtime: recipe.runtime },
  };
  return createHmac('sha256', secret).update(canonicalJson(reviewed)).digest('hex');
}

t.test('the token written from its parts signs the canonical JSON of the whole reviewed value', async (t) => {
  const configuration = fc.record({
    recipe_id: fc.string(),
    mode: fc.constantFrom('evaluate', 'train'),
    evaluation_tasks: fc.integer(),
    seed: fc.integer(),
    include_traces: fc.boolean(),
    max_cost_usd: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
  }, { requiredKeys: ['recipe_id', 'mode'] });
  t.doesNotThrow(() => fc.assert(fc.property(fc.string(), configuration, fc.constantFrom(...catalog.recipes), (tenant, c, recipe) =>
    reviewToken(secret, tenant, canonicalJson(c), recipe) === signedWhole(tenant, c, recipe)), { numRuns: 200 }));
});
