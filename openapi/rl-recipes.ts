import { z } from 'zod';
import { dateTime, identityText, integerConst, runMode, sha256Hex, slug } from './primitives.js';
import { built, lazy, once } from './lazy.js';

/** Managed RL recipes: the catalog, preview and launch bodies, and the `rl` block of a workload. */

// The contract lists a recipe's modes evaluate first, an RL block's train first.
export const recipeMode = lazy(() => z.enum(['evaluate', 'train']));
const evaluationTasks = lazy(() => z.int().min(4).max(64).meta({ default: 16 }));
const trainingSteps = lazy(() => z.int().min(1).max(50).meta({ default: 20 }));
const seed = lazy(() => z.int().min(0).max(2147483647).meta({ default: 42 }));
const maxCostUsd = lazy(() => z.number().meta({ deprecated: true }).describe('accepted for compatibility, not enforced'));

export const RLRecipeDefaults = lazy(() => z
  .strictObject({
    evaluation_tasks: built(evaluationTasks),
    training_steps: built(trainingSteps),
    max_cost_usd: built(maxCostUsd).optional(),
    seed: built(seed),
  })
  .meta({ id: 'RLRecipeDefaults' }));

export const RLRecipeLimits = lazy(() => z
  .strictObject({
    comparison_tasks_min: z.int(),
    evaluation_tasks_min: z.int(),
    evaluation_tasks_max: z.int(),
    training_steps_min: z.int(),
    training_steps_max: z.int(),
  })
  .meta({ id: 'RLRecipeLimits' }));

export const RLRecipeOutput = lazy(() => z
  .strictObject({ name: z.string(), description: z.string() })
  .meta({ id: 'RLRecipeOutput' }));

export const RLRecipePhase = lazy(() => z
  .strictObject({
    id: z.enum(['baseline', 'training', 'evaluation', 'export']),
    label: z.string(),
    description: z.string(),
  })
  .meta({ id: 'RLRecipePhase' }));

export const RLRecipeDescriptor = lazy(() => z
  .strictObject({
    held_out_measures: z.string(),
    id: z.string(),
    version: z.string(),
    environment_id: z.string(),
    name: z.string(),
    model: z.string(),
    model_revision: z.string(),
    taskset: z.string(),
    modes: z.array(built(recipeMode)),
    available: z.boolean(),
    unavailable_reason: z.string().optional().describe('omitted while the recipe is available'),
    defaults: built(RLRecipeDefaults),
    limits: built(RLRecipeLimits),
    outputs: z.array(built(RLRecipeOutput)),
  })
  .meta({ id: 'RLRecipeDescriptor' }));

export type RLRecipeDescriptor = z.infer<typeof RLRecipeDescriptor>;

/** GET /v1/rl-recipes: the catalog with this tenant's availability, in catalog order. */
export const RLRecipeList = lazy(() => z.strictObject({ recipes: z.array(built(RLRecipeDescriptor)) }));

// The contract pins recipe_id/recipe_version to the one recipe the real service serves; here the
// catalog is data, so they are plain bounded strings checked against it by the domain (rl-runs.ts).
const catalogKey = lazy(() => z.string().min(1).max(64));

// One shape for both bodies, made once: the two share each field's schema, as they always have.
const recipeRequestShape = once(() => ({
  recipe_id: built(catalogKey).meta({ default: 'reasoning-gym-leg-counting' }).optional(),
  recipe_version: built(catalogKey).meta({ default: '1.0.0' }).optional(),
  mode: built(recipeMode).meta({ default: 'evaluate' }).optional(),
  evaluation_tasks: built(evaluationTasks).optional(),
  training_steps: built(trainingSteps).optional(),
  max_cost_usd: built(maxCostUsd).optional(),
  seed: built(seed).optional(),
  include_traces: z
    .boolean()
    .meta({ default: false })
    .optional()
    .describe('opt in to prompt, response and verifier text in the RL events'),
}));

/** Preview body. Closed, every field optional; an explicit null is refused like a wrong type. */
export const RLRecipeRequest = lazy(() => z.strictObject(recipeRequestShape()).meta({ id: 'RLRecipeRequest' }));
export type RLRecipeRequest = z.infer<typeof RLRecipeRequest>;

/** Launch body: the reviewed configuration plus the preview's token. */
export const RLRunRequest = lazy(() => z
  .strictObject({ ...recipeRequestShape(), review_token: built(sha256Hex) })
  .meta({ id: 'RLRunRequest' }));
export type RLRunRequest = z.infer<typeof RLRunRequest>;

const estimateRange = lazy(() => z.strictObject({ low: z.number().min(0), high: z.number().min(0) }));

export const RLRunEstimate = lazy(() => z
  .strictObject({
    estimator_version: z.string().optional(),
    catalog_version: z.string().optional(),
    profile_version: z.string().optional(),
    router_version: z.string().optional(),
    provenance: z.string().optional(),
    customer_price_version: z.string().optional(),
    status: z.enum(['estimated', 'partial', 'unavailable']).describe('`unavailable` is not a zero cost'),
    reasons: z.array(z.string()),
    valid_until: built(dateTime).nullable(),
    execution_seconds: built(estimateRange).nullable(),
    completion_seconds: built(estimateRange).nullable(),
    compute_cost_usd: built(estimateRange).nullable(),
  })
  .meta({ id: 'RLRunEstimate' }));
export type RLRunEstimate = z.infer<typeof RLRunEstimate>;

export const RLRunPreview = lazy(() => z
  .strictObject({
    recipe: built(RLRecipeDescriptor),
    // The request as normalised by the server, defaults filled in.
    configuration: built(RLRecipeRequest),
    review_token: z
      .string()
      .max(64)
      .describe('empty while the runtime is unavailable; otherwise bound to exactly this configuration'),
    phases: z.array(built(RLRecipePhase)),
    outputs: z.array(built(RLRecipeOutput)),
    estimate: built(RLRunEstimate),
    launchable: z.boolean(),
    blocking_reasons: z.array(z.string()),
  })
  .meta({ id: 'RLRunPreview' }));
export type RLRunPreview = z.infer<typeof RLRunPreview>;

export const RLRecipeProvenance = lazy(() => z
  .strictObject({
    id: built(slug),
    version: z.string().max(64),
    runtime_image: z.string().max(512),
    model_revision: z.string().regex(/^[a-f0-9]{40}$/),
    config_sha256: built(sha256Hex),
    request_sha256: built(sha256Hex),
    review_token: built(sha256Hex),
  })
  .meta({ id: 'RLRecipeProvenance' }));
export type RLRecipeProvenance = z.infer<typeof RLRecipeProvenance>;

/**
 * The `rl` block of a workload payload. Whether a custom submission may carry `recipe` (it may
 * not) is the domain's rule (server/domain/launches/custom-runs.ts); this schema checks shape only.
 */
export const RLMetadata = lazy(() => z
  .strictObject({
    schema_version: integerConst(1),
    // The contract also enumerates environment ids; the catalog is data here, and the domain checks
    // the id against it (custom-runs.ts).
    environment_id: built(slug).max(64),
    mode: built(runMode),
    model: identityText(256),
    planned_tasks: z.int().min(1).max(10000),
    example_id: built(slug).optional(),
    recipe: built(RLRecipeProvenance).nullable()
      .meta({ readOnly: true })
      .optional()
      .describe('server-owned provenance of a managed recipe launch'),
  })
  .superRefine((rl, ctx) => {
    if (rl.environment_id === 'officeqa' && rl.mode !== 'evaluate') {
      ctx.addIssue({ code: 'custom', path: ['mode'], message: 'officeqa runs are evaluate-only' });
    }
  })
  .meta({ id: 'RLMetadata' }));
export type RLMetadata = z.infer<typeof RLMetadata>;
