import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { RLRecipeDescriptor, RLRecipeOutput } from '../openapi/rl-recipes.js';
import { packageRoot } from './package-info.js';
import type { RecipeSimulation, RunMode } from './simulator/types.js';

/** The contract's bounds on every recipe's request fields (RLRecipeRequest). */
const CONTRACT_BOUNDS = { evaluationTasks: [4, 64], trainingSteps: [1, 50] } as const;

const finite = z.number().nonnegative();
const Simulation = z.strictObject({
  base_pass_rate: z.number().min(0).max(1),
  trained_pass_rate: z.number().min(0).max(1),
  group_size: z.number().int().min(1).max(64),
  eval_concurrency: z.number().int().min(1).max(256),
  seconds_per_attempt: z.number().positive(),
  seconds_per_training_step: z.number().positive(),
  planning_seconds: finite,
  reserving_seconds: finite,
  provisioning_seconds: finite,
  export_seconds: finite,
  error_rate: z.number().min(0).max(0.5),
  infrastructure_failure_rate: z.number().min(0).max(0.5),
}) satisfies z.ZodType<RecipeSimulation>;

/**
 * A catalog recipe: the wire descriptor plus what only the server knows (runtime, price,
 * grading, simulation). Outputs may name the modes that produce them; the wire hides that.
 */
const CatalogRecipe = RLRecipeDescriptor.omit({ outputs: true }).extend({
  outputs: z.array(RLRecipeOutput.extend({ modes: z.array(z.enum(['evaluate', 'train'])).min(1).optional() })).min(1),
  runtime: z.strictObject({ image: z.string().min(1).max(512), version: z.string().min(1).max(64) }),
  private_grading: z.boolean(),
  pricing: z.strictObject({ gpu: z.string().min(1), usd_per_hour: z.number().positive() }),
  simulation: Simulation,
});
export type CatalogRecipe = z.infer<typeof CatalogRecipe>;

const CatalogFile = z.strictObject({
  schema_version: z.literal(1),
  catalog_version: z.string().min(1).max(64),
  recipes: z.array(CatalogRecipe).min(1),
});

export class CatalogError extends Error {
  override name = 'CatalogError';
}

/** Rules the schema cannot state: they tie fields of one recipe together. */
function crossCheck(r: CatalogRecipe): [string, string] | undefined {
  const l = r.limits;
  const d = r.defaults;
  if (l.evaluation_tasks_min > l.evaluation_tasks_max) return ['limits.evaluation_tasks_min', 'exceeds evaluation_tasks_max'];
  if (l.training_steps_min > l.training_steps_max) return ['limits.training_steps_min', 'exceeds training_steps_max'];
  const [eMin, eMax] = CONTRACT_BOUNDS.evaluationTasks;
  const [sMin, sMax] = CONTRACT_BOUNDS.trainingSteps;
  if (l.evaluation_tasks_min < eMin || l.evaluation_tasks_max > eMax) return ['limits.evaluation_tasks_*', `must lie within the contract's ${eMin}–${eMax}`];
  if (l.training_steps_min < sMin || l.training_steps_max > sMax) return ['limits.training_steps_*', `must lie within the contract's ${sMin}–${sMax}`];
  if (d.evaluation_tasks < l.evaluation_tasks_min || d.evaluation_tasks > l.evaluation_tasks_max) return ['defaults.evaluation_tasks', 'is outside limits'];
  if (d.training_steps < l.training_steps_min || d.training_steps > l.training_steps_max) return ['defaults.training_steps', 'is outside limits'];
  if (r.modes.length === 0) return ['modes', 'must name at least one mode'];
  if (!r.available && !r.unavailable_reason) return ['unavailable_reason', 'is required when available is false'];
  if (r.available && r.unavailable_reason !== undefined) return ['unavailable_reason', 'must be absent when available is true'];
  return undefined;
}

export class Catalog {
  private readonly byKey = new Map<string, CatalogRecipe>();

  constructor(
    readonly version: string,
    readonly recipes: readonly CatalogRecipe[],
  ) {
    for (const r of recipes) this.byKey.set(`${r.id}@${r.version}`, r);
  }

  /** The newest version of `id` when `version` is absent (versions compared numerically). */
  recipe(id: string, version?: string): CatalogRecipe | undefined {
    if (version !== undefined) return this.byKey.get(`${id}@${version}`);
    const versions = this.recipes.filter((r) => r.id === id);
    return versions.sort((a, b) => b.version.localeCompare(a.version, 'en', { numeric: true }))[0];
  }

  hasRecipeId(id: string): boolean {
    return this.recipes.some((r) => r.id === id);
  }

  /** Outputs a run in this mode produces, as the wire spells them. */
  static outputsFor(recipe: CatalogRecipe, mode: RunMode): z.infer<typeof RLRecipeOutput>[] {
    return recipe.outputs.filter((o) => !o.modes || o.modes.includes(mode)).map(({ name, description }) => ({ name, description }));
  }

  /** The wire descriptor without server-only fields; availability comes from the caller. */
  static descriptor(recipe: CatalogRecipe, available: boolean, unavailableReason?: string): z.infer<typeof RLRecipeDescriptor> {
    const { runtime: _r, private_grading: _g, pricing: _p, simulation: _s, unavailable_reason: _u, available: _a, outputs, ...wire } = recipe;
    return {
      ...wire,
      available,
      ...(available ? {} : { unavailable_reason: unavailableReason ?? 'unavailable' }),
      outputs: outputs.map(({ name, description }) => ({ name, description })),
    };
  }
}

/** Parses and checks a catalog document; errors name the entry and the field. */
export function parseCatalog(document: unknown, source: string): Catalog {
  const parsed = CatalogFile.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const [section, index, ...field] = issue.path;
    const entry = section === 'recipes' && typeof index === 'number'
      ? `recipes[${index}]${idOf(document, index)}`
      : [section, index].filter((p) => p !== undefined).join('.') || '(top level)';
    throw new CatalogError(`${source}: ${entry} ${field.join('.') || ''}: ${issue.message}`.replace(/ +:/, ':'));
  }
  const seen = new Set<string>();
  parsed.data.recipes.forEach((r, i) => {
    const key = `${r.id}@${r.version}`;
    if (seen.has(key)) throw new CatalogError(`${source}: recipes[${i}] (${r.id}) version: ${r.version} appears twice`);
    seen.add(key);
    const problem = crossCheck(r);
    if (problem) throw new CatalogError(`${source}: recipes[${i}] (${r.id}) ${problem[0]}: ${problem[1]}`);
  });
  return new Catalog(parsed.data.catalog_version, parsed.data.recipes);
}

function idOf(document: unknown, index: number): string {
  const id = (document as { recipes?: { id?: unknown }[] })?.recipes?.[index]?.id;
  return typeof id === 'string' ? ` (${id})` : '';
}

export const DEFAULT_CATALOG_PATH = () => join(packageRoot(), 'catalog', 'recipes.json');

export function loadCatalog(path: string = DEFAULT_CATALOG_PATH()): Catalog {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CatalogError(`${path}: cannot read: ${(err as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new CatalogError(`${path}: not valid JSON: ${(err as Error).message}`);
  }
  return parseCatalog(document, path);
}
