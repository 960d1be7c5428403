import { join } from 'node:path';
import { z } from 'zod';
import { built, lazy } from '../../../openapi/lazy.js';
import { recipeMode, RLRecipeDescriptor, RLRecipeOutput } from '../../../openapi/rl-recipes.js';
import { CatalogEnvironment, checkEnvironment, runnableExample } from './environments.js';
import { readJsonFile, readShippedJsonFile } from '../json-file.js';
import { packageRoot } from '../../boot/package-info.js';
import type { RecipeSimulation, RunMode } from '../../simulator/types.js';

/** The contract's bounds on every recipe's request fields (RLRecipeRequest). */
const CONTRACT_BOUNDS = { evaluationTasks: [4, 64], trainingSteps: [1, 50] } as const;

const finite = z.number().nonnegative();
export const Simulation = lazy(() => z.strictObject({
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
  unrecoverable_error_rate: z.number().min(0).max(1).optional(),
  infrastructure_failure_rate: z.number().min(0).max(0.5),
}) satisfies z.ZodType<RecipeSimulation>);

/**
 * A catalog recipe: the wire descriptor plus what only the server knows (runtime, price,
 * grading, simulation). Outputs may name the modes that produce them; the wire hides that.
 */
const CatalogRecipe = lazy(() => built(RLRecipeDescriptor).omit({ outputs: true }).extend({
  outputs: z.array(built(RLRecipeOutput).extend({ modes: z.array(built(recipeMode)).min(1).optional() })).min(1),
  runtime: z.strictObject({ image: z.string().min(1).max(512), version: z.string().min(1).max(64) }),
  private_grading: z.boolean(),
  pricing: z.strictObject({ gpu: z.string().min(1), usd_per_hour: z.number().positive() }),
  simulation: built(Simulation),
}));
export type CatalogRecipe = z.infer<typeof CatalogRecipe>;

/**
 * One catalog document. The built-in recipes and environments are two such files; a `--catalog`
 * file may carry either section or both, and each section it carries replaces the built-in one.
 */
const CatalogFile = lazy(() => z.strictObject({
  schema_version: z.literal(1),
  catalog_version: z.string().min(1).max(64).optional(),
  recipes: z.array(built(CatalogRecipe)).min(1).optional(),
  reviewed_at: z.string().min(1).max(64).optional(),
  environments: z.array(built(CatalogEnvironment)).optional(),
}));
type CatalogDocument = z.infer<typeof CatalogFile>;

interface RecipeSection {
  version: string;
  recipes: CatalogRecipe[];
}

interface EnvironmentSection {
  reviewedAt?: string;
  environments: CatalogEnvironment[];
}

interface CatalogSections {
  recipes?: RecipeSection;
  environments?: EnvironmentSection;
}

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
  readonly version: string;
  readonly recipes: readonly CatalogRecipe[];
  readonly reviewedAt: string | undefined;
  readonly environments: readonly CatalogEnvironment[];
  private readonly byKey = new Map<string, CatalogRecipe>();

  constructor(recipes: RecipeSection, environments: EnvironmentSection) {
    this.version = recipes.version;
    this.recipes = recipes.recipes;
    this.reviewedAt = environments.reviewedAt;
    this.environments = environments.environments;
    for (const r of this.recipes) this.byKey.set(`${r.id}@${r.version}`, r);
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

  environment(id: string): CatalogEnvironment | undefined {
    return this.environments.find((e) => e.id === id);
  }

  /** An environment's example, when the environment is runnable and has it. */
  example(environmentId: string, exampleId: string) {
    return runnableExample(this.environments, environmentId, exampleId);
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

/** Rules the schema cannot state: which top-level fields go with which section. */
function checkSections(doc: CatalogDocument): [string, string] | undefined {
  if (!doc.recipes && !doc.environments) return ['(top level)', 'a catalog file needs a `recipes` or an `environments` section'];
  if (doc.recipes && doc.catalog_version === undefined) return ['catalog_version', 'is required with `recipes`'];
  if (!doc.recipes && doc.catalog_version !== undefined) return ['catalog_version', 'belongs to the `recipes` section, which this file lacks'];
  if (!doc.environments && doc.reviewed_at !== undefined) return ['reviewed_at', 'belongs to the `environments` section, which this file lacks'];
  return undefined;
}

/** `recipes[2] (my-recipe)`: the entry a problem is in, with its id when it has one. */
function entryName(document: unknown, section: PropertyKey, index: number): string {
  const id = (document as Record<PropertyKey, { id?: unknown }[] | undefined>)?.[section]?.[index]?.id;
  return `${String(section)}[${index}]${typeof id === 'string' ? ` (${id})` : ''}`;
}

/** Parses and checks one catalog document; errors name the entry and the field. */
export function parseCatalog(document: unknown, source: string): CatalogSections {
  const parsed = CatalogFile.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const [section, index, ...field] = issue.path;
    const entry = typeof index === 'number' && (section === 'recipes' || section === 'environments')
      ? entryName(document, section, index)
      : [section, index].filter((p) => p !== undefined).join('.') || '(top level)';
    throw new CatalogError(`${source}: ${entry} ${field.join('.') || ''}: ${issue.message}`.replace(/ +:/, ':'));
  }
  const doc = parsed.data;
  const misplaced = checkSections(doc);
  if (misplaced) throw new CatalogError(`${source}: ${misplaced[0]}: ${misplaced[1]}`);
  if (doc.recipes) {
    const seen = new Set<string>();
    doc.recipes.forEach((r, i) => {
      const key = `${r.id}@${r.version}`;
      if (seen.has(key)) throw new CatalogError(`${source}: recipes[${i}] (${r.id}) version: ${r.version} appears twice`);
      seen.add(key);
      const problem = crossCheck(r);
      if (problem) throw new CatalogError(`${source}: recipes[${i}] (${r.id}) ${problem[0]}: ${problem[1]}`);
    });
  }
  if (doc.environments) {
    const seen = new Set<string>();
    doc.environments.forEach((e, i) => {
      if (seen.has(e.id)) throw new CatalogError(`${source}: environments[${i}] (${e.id}) id: appears twice`);
      seen.add(e.id);
      const problem = checkEnvironment(e);
      if (problem) throw new CatalogError(`${source}: environments[${i}] (${e.id}) ${problem[0]}: ${problem[1]}`);
    });
  }
  return sectionsOf(doc);
}

function sectionsOf(doc: CatalogDocument): CatalogSections {
  const sections: CatalogSections = {};
  if (doc.recipes) sections.recipes = { version: doc.catalog_version!, recipes: doc.recipes };
  if (doc.environments) {
    sections.environments = { environments: doc.environments, ...(doc.reviewed_at === undefined ? {} : { reviewedAt: doc.reviewed_at }) };
  }
  return sections;
}

export const DEFAULT_CATALOG_PATH = () => join(packageRoot(), 'catalog', 'recipes.json');
export const DEFAULT_ENVIRONMENTS_PATH = () => join(packageRoot(), 'catalog', 'environments.json');

const catalogError = (message: string) => new CatalogError(message);

function readCatalogFile(path: string): CatalogSections {
  return parseCatalog(readJsonFile(path, catalogError), path);
}

/**
 * A built-in file, taken as it is: checking the built-in files took 15-25 ms of every cold start
 * (zod compiles the catalog schemas on their first use), and test/domain/catalog.test.ts proves that
 * parseCatalog accepts them and returns them unchanged. A `--catalog` file is always checked.
 */
function readBuiltInFile(path: string): CatalogSections {
  return sectionsOf(readShippedJsonFile(path, catalogError) as CatalogDocument);
}

/**
 * The built-in recipes and environments, with each section `path` carries (a `--catalog` file)
 * in place of the built-in one.
 */
export function loadCatalog(path?: string): Catalog {
  const given = path === undefined ? {} : readCatalogFile(path);
  const recipes = given.recipes ?? readBuiltInFile(DEFAULT_CATALOG_PATH()).recipes;
  const environments = given.environments ?? readBuiltInFile(DEFAULT_ENVIRONMENTS_PATH()).environments;
  if (!recipes || !environments) throw new CatalogError(`${packageRoot()}/catalog: a built-in catalog file lacks its section`);
  return new Catalog(recipes, environments);
}
