import { z } from 'zod';
import { dateTime, identityText, integerConst, runMode, sha256Hex, slug } from './primitives.js';

/** Managed RL recipes: the catalog, preview and launch bodies, and the `rl` block of a workload. */

// The contract lists a recipe's modes evaluate first, an RL block's train first.
export const recipeMode = z.enum(['evaluate', 'train']);
const evaluationTasks = z.int().min(4).max(64).meta({ default: 16 });
const trainingSteps = z.int().min(1).max(50).meta({ default: 20 });
const seed = z.int().min(0).max(2147483647).meta({ default: 42 });
const maxCostUsd = z.number().meta({ deprecated: true }).describe('accepted for compatibility, not enforced');

export const RLRecipeDefaults = z
  .strictObject({
    evaluation_tasks: evaluationTasks,
    training_steps: trainingSteps,
    max_cost_usd: maxCostUsd.optional(),
    seed,
  })
  .meta({ id: 'RLRecipeDefaults' });

export const RLRecipeLimits = z
  .strictObject({
    comparison_tasks_min: z.int(),
    evaluation_tasks_min: z.int(),
    evaluation_tasks_max: z.int(),
    training_steps_min: z.int(),
    training_steps_max: z.int(),
  })
  .meta({ id: 'RLRecipeLimits' });

export const RLRecipeOutput = z
  .strictObject({ name: z.string(), description: z.string() })
  .meta({ id: 'RLRecipeOutput' });

export const RLRecipePhase = z
  .strictObject({
    id: z.enum(['baseline', 'training', 'evaluation', 'export']),
    label: z.string(),
    description: z.string(),
  })
  .meta({ id: 'RLRecipePhase' });

export const RLRecipeDescriptor = z
  .strictObject({
    held_out_measures: z.string(),
    id: z.string(),
    version: z.string(),
    environment_id: z.string(),
    name: z.string(),
    model: z.string(),
    model_revision: z.string(),
    taskset: z.string(),
    modes: z.array(recipeMode),
    available: z.boolean(),
    unavailable_reason: z.string().optional().describe('omitted while the recipe is available'),
    defaults: RLRecipeDefaults,
    limits: RLRecipeLimits,
    outputs: z.array(RLRecipeOutput),
  })
  .meta({ id: 'RLRecipeDescriptor' });

export type RLRecipeDescriptor = z.infer<typeof RLRecipeDescriptor>;

/** GET /v1/rl-recipes: the catalog with this tenant's availability, in catalog order. */
export const RLRecipeList = z.strictObject({ recipes: z.array(RLRecipeDescriptor) });

// The contract pins recipe_id/recipe_version to the one recipe the real service serves; here the
// catalog is data, so they are plain bounded strings checked against it by the domain (rl-runs.ts).
const catalogKey = z.string().min(1).max(64);

const recipeRequestShape = {
  recipe_id: catalogKey.meta({ default: 'reasoning-gym-leg-counting' }).optional(),
  recipe_version: catalogKey.meta({ default: '1.0.0' }).optional(),
  mode: recipeMode.meta({ default: 'evaluate' }).optional(),
  evaluation_tasks: evaluationTasks.optional(),
  training_steps: trainingSteps.optional(),
  max_cost_usd: maxCostUsd.optional(),
  seed: seed.optional(),
  include_traces: z
    .boolean()
    .meta({ default: false })
    .optional()
    .describe('opt in to prompt, response and verifier text in the RL events'),
};

/** Preview body. Closed, every field optional; an explicit null is refused like a wrong type. */
export const RLRecipeRequest = z.strictObject(recipeRequestShape).meta({ id: 'RLRecipeRequest' });
export type RLRecipeRequest = z.infer<typeof RLRecipeRequest>;

/** Launch body: the reviewed configuration plus the preview's token. */
export const RLRunRequest = z
  .strictObject({ ...recipeRequestShape, review_token: sha256Hex })
  .meta({ id: 'RLRunRequest' });
export type RLRunRequest = z.infer<typeof RLRunRequest>;

const estimateRange = z.strictObject({ low: z.number().min(0), high: z.number().min(0) });

export const RLRunEstimate = z
  .strictObject({
    estimator_version: z.string().optional(),
    catalog_version: z.string().optional(),
    profile_version: z.string().optional(),
    router_version: z.string().optional(),
    provenance: z.string().optional(),
    customer_price_version: z.string().optional(),
    status: z.enum(['estimated', 'partial', 'unavailable']).describe('`unavailable` is not a zero cost'),
    reasons: z.array(z.string()),
    valid_until: dateTime.nullable(),
    execution_seconds: estimateRange.nullable(),
    completion_seconds: estimateRange.nullable(),
    compute_cost_usd: estimateRange.nullable(),
  })
  .meta({ id: 'RLRunEstimate' });
export type RLRunEstimate = z.infer<typeof RLRunEstimate>;

export const RLRunPreview = z
  .strictObject({
    recipe: RLRecipeDescriptor,
    // The request as normalised by the server, defaults filled in.
    configuration: RLRecipeRequest,
    review_token: z
      .string()
      .max(64)
      .describe('empty while the runtime is unavailable; otherwise bound to exactly this configuration'),
    phases: z.array(RLRecipePhase),
    outputs: z.array(RLRecipeOutput),
    estimate: RLRunEstimate,
    launchable: z.boolean(),
    blocking_reasons: z.array(z.string()),
  })
  .meta({ id: 'RLRunPreview' });
export type RLRunPreview = z.infer<typeof RLRunPreview>;

export const RLRecipeProvenance = z
  .strictObject({
    id: slug,
    version: z.string().max(64),
    runtime_image: z.string().max(512),
    model_revision: z.string().regex(/^[a-f0-9]{40}$/),
    config_sha256: sha256Hex,
    request_sha256: sha256Hex,
    review_token: sha256Hex,
  })
  .meta({ id: 'RLRecipeProvenance' });
export type RLRecipeProvenance = z.infer<typeof RLRecipeProvenance>;

/**
 * The `rl` block of a workload payload. Whether a custom submission may carry `recipe` (it may
 * not) is the domain's rule (server/domain/launches/custom-runs.ts); this schema checks shape only.
 */
export const RLMetadata = z
  .strictObject({
    schema_version: integerConst(1),
    // The contract also enumerates environment ids; the catalog is data here, and the domain checks
    // the id against it (custom-runs.ts).
    environment_id: slug.max(64),
    mode: runMode,
    model: identityText(256),
    planned_tasks: z.int().min(1).max(10000),
    example_id: slug.optional(),
    recipe: RLRecipeProvenance.nullable()
      .meta({ readOnly: true })
      .optional()
      .describe('server-owned provenance of a managed recipe launch'),
  })
  .superRefine((rl, ctx) => {
    if (rl.environment_id === 'officeqa' && rl.mode !== 'evaluate') {
      ctx.addIssue({ code: 'custom', path: ['mode'], message: 'officeqa runs are evaluate-only' });
    }
  })
  .meta({ id: 'RLMetadata' });
export type RLMetadata = z.infer<typeof RLMetadata>;
