import { createHmac, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import { keysOf } from '../../../openapi/plain.js';
import { RLRecipeRequest, RLRunRequest, type RLRecipePhase, type RLRunPreview } from '../../../openapi/rl-recipes.js';
import { budgetReady, budgetRefusal, recipeAvailability } from './admission.js';
import { canonicalJson, canonicalJsonOf, sha256Hex } from '../json-text.js';
import { Catalog, type CatalogRecipe } from '../catalog/index.js';
import { isoTime } from '../clock.js';
import { DomainError } from '../errors.js';
import { estimateRun } from '../../simulator/estimate.js';
import { gradingPlanSha256 } from '../../simulator/index.js';
import type { RunMode, SimSpec } from '../../simulator/types.js';
import { newWorkloadId } from '../ids.js';
import { insertWorkload, type NewWorkload } from '../workloads/rows.js';
import { admitOnce, fingerprintOf, knownReplay } from '../keyed-admission.js';
import type { DomainContext, ReviewTokens } from '../context.js';
import type { TenantUnit } from '../unit.js';
import type { SecretName } from '../../../store/settings.js';

type Request = z.infer<typeof RLRecipeRequest>;
type Phase = z.infer<typeof RLRecipePhase>;
type Preview = z.infer<typeof RLRunPreview>;

/** The recipe a request that names none launches (the contract's default). */
const DEFAULT_RECIPE_ID = 'reasoning-gym-leg-counting';

/** How long a preview's estimate (and so its token's review) stays valid, in virtual time. */
const ESTIMATE_VALID_MS = 15 * 60 * 1000;

interface Configuration {
  recipe_id: string;
  recipe_version: string;
  mode: RunMode;
  evaluation_tasks: number;
  training_steps: number;
  seed: number;
  include_traces: boolean;
  max_cost_usd?: number;
}

interface NormalisedRun {
  recipe: CatalogRecipe;
  configuration: Configuration;
  /** canonicalJson of the configuration: what its review token signs and config_sha256 hashes. */
  configurationJson: string;
}

/**
 * The canonical JSON of a configuration and of a launch body: both are closed objects of strings,
 * numbers and booleans, so their keys are sorted once, not on every launch.
 */
const configurationText = canonicalJsonOf<Configuration>(() => keysOf(RLRecipeRequest));
const launchText = canonicalJsonOf<z.infer<typeof RLRunRequest>>(() => keysOf(RLRunRequest));

/** A launch body's canonical SHA-256: its Idempotency-Key's fingerprint and the workload's request_sha256. */
export const launchFingerprint = (body: z.infer<typeof RLRunRequest>): string => sha256Hex(launchText(body));

const invalid = (field: string, message: string) => new DomainError('invalid', 'invalid_request', `body.${field}: ${message}`);

function within(field: string, value: number, min: number, max: number): number {
  if (value < min || value > max) throw invalid(field, `${value} is outside this recipe's limits ${min}–${max}`);
  return value;
}

/** Fills every default from the recipe and checks the values against its limits and modes. */
function normalise(catalog: Catalog, request: Request): NormalisedRun {
  const id = request.recipe_id ?? DEFAULT_RECIPE_ID;
  if (!catalog.hasRecipeId(id)) {
    throw new DomainError('invalid', 'unknown_recipe', `body.recipe_id: no recipe "${id}" in this catalog; GET /v1/rl-recipes lists them`);
  }
  const recipe = catalog.recipe(id, request.recipe_version);
  if (!recipe) {
    const versions = catalog.recipes.filter((r) => r.id === id).map((r) => r.version).join(', ');
    throw new DomainError('invalid', 'unknown_recipe', `body.recipe_version: recipe "${id}" has no version "${request.recipe_version}" (versions: ${versions})`);
  }
  const mode = request.mode ?? (recipe.modes.includes('evaluate') ? 'evaluate' : recipe.modes[0]);
  if (!recipe.modes.includes(mode)) {
    throw invalid('mode', `recipe "${id}" does not offer mode "${mode}" (modes: ${recipe.modes.join(', ')})`);
  }
  const l = recipe.limits;
  const configuration: Configuration = {
    recipe_id: recipe.id,
    recipe_version: recipe.version,
    mode,
    evaluation_tasks: within('evaluation_tasks', request.evaluation_tasks ?? recipe.defaults.evaluation_tasks, l.evaluation_tasks_min, l.evaluation_tasks_max),
    training_steps: within('training_steps', request.training_steps ?? recipe.defaults.training_steps, l.training_steps_min, l.training_steps_max),
    seed: request.seed ?? recipe.defaults.seed,
    include_traces: request.include_traces ?? false,
  };
  // Deprecated and not enforced, but echoed so a launch built from the preview round-trips.
  if (request.max_cost_usd !== undefined) configuration.max_cost_usd = request.max_cost_usd;
  return { recipe, configuration, configurationJson: configurationText(configuration) };
}

function phasesFor(run: NormalisedRun): Phase[] {
  const { recipe, configuration: c } = run;
  const evaluation: Phase = {
    id: 'evaluation',
    label: c.mode === 'train' ? 'Final evaluation' : 'Evaluation',
    description: `${recipe.model} answers ${c.evaluation_tasks} held-out ${recipe.taskset} tasks${c.mode === 'train' ? ' again, with the trained adapter' : ''}; the platform grades each answer`,
  };
  if (c.mode === 'evaluate') return [evaluation];
  return [
    { id: 'baseline', label: 'Baseline evaluation', description: `${recipe.model} answers the same ${c.evaluation_tasks} held-out tasks before any training` },
    { id: 'training', label: 'GRPO training', description: `${c.training_steps} GRPO steps with a LoRA adapter, each learning from a group of ${recipe.simulation.group_size} replies` },
    evaluation,
    { id: 'export', label: 'Export', description: 'The LoRA adapter and the before/after comparison are published as outputs' },
  ];
}

/** The simulation spec a launch of this run stores; also what the estimate is computed from. */
function specFor(run: NormalisedRun, workloadId: string, createdAtMs: number): SimSpec {
  const { recipe, configuration: c } = run;
  return {
    version: 1,
    kind: 'recipe',
    workloadId,
    stageId: 'main',
    mode: c.mode,
    model: recipe.model,
    recipe: { id: recipe.id, version: recipe.version },
    seed: c.seed,
    createdAtMs,
    evaluationTasks: c.evaluation_tasks,
    trainingSteps: c.mode === 'train' ? c.training_steps : 0,
    includeTraces: c.include_traces,
    taskset: recipe.taskset,
    simulation: recipe.simulation,
    usdPerHour: recipe.pricing.usd_per_hour,
    privateGrading: recipe.private_grading,
  };
}

/** POST /v1/rl-runs/preview: what would run, what it would cost, and whether it may launch. */
function previewRun(deps: DomainContext, unit: TenantUnit, request: Request): Preview {
  const run = normalise(deps.catalog, request);
  const { recipe, configuration: c } = run;
  const { tenantId, nowMs } = unit;
  const availability = recipeAvailability(deps, tenantId, recipe);
  const blocking: string[] = [];
  const reasons: string[] = [];
  if (c.mode === 'train' && c.evaluation_tasks < recipe.limits.comparison_tasks_min) {
    reasons.push(
      `evaluation_tasks ${c.evaluation_tasks} is below comparison_tasks_min ${recipe.limits.comparison_tasks_min}: the before/after comparison may not be measurable`,
    );
  }
  let estimate: Preview['estimate'];
  if (!availability.available) {
    blocking.push(`recipe_unavailable: ${availability.reason}`);
    estimate = {
      status: 'unavailable',
      reasons: [`recipe unavailable: ${availability.reason}`],
      valid_until: null,
      execution_seconds: null,
      completion_seconds: null,
      compute_cost_usd: null,
    };
  } else {
    const e = estimateRun(specFor(run, 'preview', nowMs));
    const refusal = budgetRefusal(unit, e.computeCostUsd.high);
    if (refusal) blocking.push(`budget_exceeded: ${refusal.message}`);
    estimate = {
      status: 'estimated',
      reasons,
      valid_until: isoTime(nowMs + ESTIMATE_VALID_MS),
      execution_seconds: e.executionSeconds,
      completion_seconds: e.completionSeconds,
      compute_cost_usd: e.computeCostUsd,
      estimator_version: 'nodus-mock-simulator-1',
      catalog_version: deps.catalog.version,
      provenance: 'simulated',
    };
  }
  const launchable = blocking.length === 0;
  const token = launchable ? deps.reviews.sign(tenantId, run.configurationJson, recipe) : '';
  // Only with the lever on does a preview write: it remembers when its review stops being valid.
  if (token && unit.tables.cached.levers(tenantId).reviewExpiry) unit.tables.levers.rememberReview(tenantId, token, nowMs + ESTIMATE_VALID_MS);
  return {
    recipe: Catalog.descriptor(recipe, availability.available, availability.reason),
    configuration: c,
    review_token: token,
    phases: phasesFor(run),
    outputs: Catalog.outputsFor(recipe, c.mode),
    estimate,
    launchable,
    blocking_reasons: blocking,
  };
}

/** The workload a managed launch creates: an ordinary workload with server-owned provenance. */
function recipeWorkload(run: NormalisedRun, body: z.infer<typeof RLRunRequest>, requestSha256: string, id: string, nowMs: number, unrecoverableErrorRate: number | null): NewWorkload {
  const { recipe, configuration: c } = run;
  const spec = specFor(run, id, nowMs);
  // The tenant's lever is fixed into the stored spec, so the run stays a function of it.
  if (unrecoverableErrorRate !== null) spec.simulation = { ...spec.simulation, unrecoverable_error_rate: unrecoverableErrorRate };
  const plannedTasks = c.mode === 'train' ? 2 * c.evaluation_tasks + c.training_steps * recipe.simulation.group_size : c.evaluation_tasks;
  const name = `${recipe.id} ${c.mode}`;
  const payload = {
    name,
    source: {
      image: recipe.runtime.image,
      command: ['nodus-rl', 'run', `--recipe=${recipe.id}@${recipe.version}`, `--mode=${c.mode}`, `--evaluation-tasks=${c.evaluation_tasks}`,
        ...(c.mode === 'train' ? [`--training-steps=${c.training_steps}`] : []), `--seed=${c.seed}`],
    },
    requirements: { compute_class: 'accelerator', gpu: recipe.pricing.gpu, gpu_count: 1, model: recipe.model },
    outcome: {},
    continuity: { mode: 'checkpointed', resume_on_interruption: true },
    rl: {
      schema_version: 1,
      environment_id: recipe.environment_id,
      mode: c.mode,
      model: recipe.model,
      planned_tasks: plannedTasks,
      recipe: {
        id: recipe.id,
        version: recipe.version,
        runtime_image: recipe.runtime.image,
        model_revision: recipe.model_revision,
        config_sha256: sha256Hex(run.configurationJson),
        request_sha256: requestSha256,
        review_token: body.review_token,
      },
    },
  };
  return { id, kind: 'recipe', origin: 'recipe', name, payload, spec, estimatedCostUsd: estimateRun(spec).computeCostUsd.high };
}

/**
 * The admission of POST /v1/rl-runs once its key is known to be new: re-normalise, check the
 * token against what was reviewed, check admission again, then store the workload.
 * `requestSha256` is the canonical SHA-256 of `body`.
 */
function admitLaunch(deps: DomainContext, unit: TenantUnit, body: z.infer<typeof RLRunRequest>, requestSha256: string): string {
  const { tenantId, nowMs } = unit;
  const { review_token: token, ...request } = body;
  const run = normalise(deps.catalog, request);
  if (!sameToken(token, deps.reviews.sign(tenantId, run.configurationJson, run.recipe))) {
    throw new DomainError(
      'conflict',
      'review_changed',
      'the configuration, the recipe or its runtime changed since this review token was issued; preview again and launch with the new review_token',
    );
  }
  const levers = unit.tables.cached.levers(tenantId);
  const validUntilMs = levers.reviewExpiry ? unit.tables.levers.reviewValidUntil(tenantId, token) : null;
  if (validUntilMs !== null && nowMs > validUntilMs) {
    throw new DomainError(
      'conflict',
      'review_changed',
      `this review expired at ${isoTime(validUntilMs)} (the preview's estimate.valid_until; review expiry is on for this tenant); preview again and launch with the new review_token`,
    );
  }
  const availability = recipeAvailability(deps, tenantId, run.recipe);
  if (!availability.available) {
    throw new DomainError('unavailable', 'rl_unavailable', `managed launches of "${run.recipe.id}" are paused: ${availability.reason}`);
  }
  const workload = recipeWorkload(run, body, requestSha256, newWorkloadId(), nowMs, levers.unrecoverableErrorRate);
  const refusal = budgetRefusal(unit, workload.estimatedCostUsd);
  if (refusal) throw refusal;
  insertWorkload(unit, workload);
  // Recipes with private grading admit a plan for revision 1; the materialiser fills its receipts.
  if (run.recipe.private_grading) {
    unit.tables.grading.addPlan(workload.id, { revision: 1, planSha256: gradingPlanSha256(workload.spec, 1), simulated: true, createdAtMs: nowMs });
  }
  return workload.id;
}

/** Managed RL runs: preview, and launch with the review token. */
export function rlRunOperations(deps: DomainContext) {
  return {
    /** Writes when it must: it materialises the tenant for a budget's headroom, and remembers the review under the expiry lever. */
    async preview(tenantId: string, request: Request): Promise<Preview> {
      await budgetReady(deps, tenantId);
      return deps.units.atNow(tenantId, (unit) => previewRun(deps, unit, request));
    },

    /**
     * POST /v1/rl-runs: admitted once per Idempotency-Key. `text`, the body as sent when the caller
     * has it, lets a retry of the same bytes skip the canonical JSON and its hash.
     */
    launch(tenantId: string, key: string, body: z.infer<typeof RLRunRequest>, text?: string | null) {
      // The fingerprint is also the workload's recorded request_sha256.
      const fingerprint = fingerprintOf('rl_run.launch', text, () => launchFingerprint(body));
      return admitOnce(deps, tenantId, key, {
        operation: 'rl_run.launch',
        fingerprint,
        admit: (unit) => admitLaunch(deps, unit, body, fingerprint),
      });
    },

    /** A retry of a launch that memory shows to be one, answered before its body is checked (knownReplay). */
    knownLaunchReplay: (tenantId: string, key: string, text: string | null) => knownReplay(deps, tenantId, 'rl_run.launch', key, text),
  };
}

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
export function createReviewTokens(secret: Buffer, limit = SIGNED_LIMIT): ReviewTokens {
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

/** Constant-time comparison of two hex tokens. */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
