import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import t from '../../helpers/tap.js';
import { RLRecipeRequest, RLRunRequest } from '../../../openapi/rl-recipes.js';
import { canonicalJson, canonicalSha256 } from '../../../server/domain/json-text.js';
import { loadCatalog } from '../../../server/domain/catalog/index.js';
import { launchFingerprint } from '../../../server/domain/launches/rl-runs.js';
import { createReviewTokens, REVIEW_SECRET } from '../../../server/domain/launches/rl-runs.js';
import { domainServices } from '../../helpers/domain.js';
import { arbitraryOf } from '../../helpers/schema-arbitrary.js';

const catalog = loadCatalog();
const secret = Buffer.alloc(32, 7);

/** The token as the contract of the mock defines it: an HMAC over the whole reviewed value's canonical JSON. */
function signedWhole(key: Buffer, tenant: string, configuration: object, recipe: (typeof catalog.recipes)[number]): string {
  const reviewed = {
    tenant,
    configuration,
    recipe: { id: recipe.id, version: recipe.version, model_revision: recipe.model_revision, runtime: recipe.runtime },
  };
  return createHmac('sha256', key).update(canonicalJson(reviewed)).digest('hex');
}

const configuration = fc.record({
  recipe_id: fc.string(),
  mode: fc.constantFrom('evaluate', 'train'),
  evaluation_tasks: fc.integer(),
  seed: fc.integer(),
  include_traces: fc.boolean(),
  max_cost_usd: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: undefined }),
}, { requiredKeys: ['recipe_id', 'mode'] });

t.test('the token written from its parts signs the canonical JSON of the whole reviewed value', async (t) => {
  const tokens = createReviewTokens(secret);
  t.doesNotThrow(() => fc.assert(fc.property(fc.string(), configuration, fc.constantFrom(...catalog.recipes), (tenant, c, recipe) =>
    tokens.sign(tenant, canonicalJson(c), recipe) === signedWhole(secret, tenant, c, recipe)), { numRuns: 200 }));
});

t.test('kept tokens are the ones signed: repeats and evictions of a small memory answer the same', async (t) => {
  // A limit of 3 over a handful of inputs drawn with repeats: hits, misses and evictions all happen.
  const tokens = createReviewTokens(secret, 3);
  const inputs = fc.array(fc.tuple(fc.constantFrom('ten_a', 'ten_b'), fc.integer({ min: 0, max: 3 }), fc.constantFrom(...catalog.recipes.slice(0, 2))), { minLength: 20 });
  t.doesNotThrow(() => fc.assert(fc.property(inputs, (drawn) => drawn.every(([tenant, seed, recipe]) => {
    const c = { recipe_id: recipe.id, mode: 'evaluate', seed };
    return tokens.sign(tenant, canonicalJson(c), recipe) === signedWhole(secret, tenant, c, recipe);
  })), { numRuns: 50 }));
});

t.test('a preview signs the canonical JSON of the configuration it answers, under the store\'s secret', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const recipe = catalog.recipe('reasoning-gym-leg-counting', '1.0.0')!;
  const l = recipe.limits;
  const request = fc.record({
    mode: fc.constantFrom(...recipe.modes),
    evaluation_tasks: fc.integer({ min: l.evaluation_tasks_min, max: l.evaluation_tasks_max }),
    training_steps: fc.integer({ min: l.training_steps_min, max: l.training_steps_max }),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    include_traces: fc.boolean(),
    max_cost_usd: fc.double({ min: 0, max: 1e6, noNaN: true }),
  }, { requiredKeys: [] });
  await t.resolves(fc.assert(fc.asyncProperty(request, async (r) => {
    const preview = await d.services.launches.preview(tenant, RLRecipeRequest.parse({ recipe_id: recipe.id, recipe_version: recipe.version, ...r }));
    return preview.review_token === signedWhole(d.store.settings.secret(REVIEW_SECRET), tenant, preview.configuration, recipe);
  }), { numRuns: 100 }));
});

t.test('a launch body\'s fingerprint is the canonical SHA-256 of the body, for every field the schema has', async (t) => {
  // From the schema, so a field the launch body gains is covered without editing this test.
  const body = arbitraryOf(RLRunRequest, {
    // The review token's pattern is not visible to the generator: hex of its length, or any text.
    text: ({ minLength, maxLength }) => fc.oneof(fc.stringMatching(/^[a-f0-9]{64}$/), fc.string({ minLength, maxLength: Math.min(maxLength, 80) })),
    number: ({ min, max, integer }) => (integer ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) }) : fc.double({ min, max, noNaN: true })),
    choice: (values) => fc.constantFrom(...values),
  }).map((value) => RLRunRequest.safeParse(value)).filter((parsed) => parsed.success).map((parsed) => parsed.data!);
  t.doesNotThrow(() => fc.assert(fc.property(body, (b) => launchFingerprint(b) === canonicalSha256(b)), { numRuns: 300 }));
});
