import { posix } from 'node:path';
import { z } from 'zod';
import { built, lazy } from '../../../openapi/lazy.js';
import { runMode, slug } from '../../../openapi/primitives.js';

/**
 * The environment catalog (`catalog/environments.json`): what GET /v1/rl-environments serves and
 * what example runs are built from. Entries are served as stored, so the schema here is the
 * wire's RLEnvironment made strict where a data file benefits from it: every string the capital-N
 * SDK requires non-empty is non-empty, `launch.results` is required (that SDK refuses a launch
 * without it), examples carry an `id`, and unknown keys are typos, except the two non-contract
 * keys real payloads carry (`readiness`, `requirements`).
 */

const text = z.string().min(1);

/**
 * A result file is published as a stage output named after its basename, so the basename must be
 * a valid output name (StagePayload.outputs) and the path must stay inside the working folder.
 */
const resultPath = lazy(() => text
  .max(512)
  .refine((p) => !posix.isAbsolute(p) && !p.split('/').includes('..'), 'must be a relative path inside the working folder')
  .refine((p) => /^(?!nodus\.)[a-z0-9_][a-z0-9._-]{0,63}$/.test(posix.basename(p)), 'its file name must be a valid output name (lower case letters, digits, `_`, `.`, `-`; not starting with `nodus.`)'));

const CatalogExample = lazy(() => z.strictObject({
  id: built(slug),
  name: text.max(120),
  dataset: text,
  mode: built(runMode).optional(),
  summary: z.string().optional(),
  command: text.max(16_384),
  baseline_pass_rate: z.number().min(0).max(1).optional(),
  trained_pass_rate: z.number().min(0).max(1).optional(),
  measured_change_pp: z.number().min(-100).max(100).optional(),
  runtime_minutes: z.int().min(1).max(7 * 24 * 60).optional(),
}));
export type CatalogExample = z.infer<typeof CatalogExample>;

const CatalogLaunch = lazy(() => z.strictObject({
  image: text.max(512),
  model: text.max(256),
  peak_memory_gb: z.number().positive().max(4096).optional(),
  // RLMetadata.planned_tasks is 1–10000 and an example run plans default_tasks.
  default_tasks: z.int().min(1).max(10_000),
  measured_on: z.string().optional(),
  note: z.string().optional(),
  results: z.array(built(resultPath)),
  examples: z.array(built(CatalogExample)).min(1),
}));

export const CatalogEnvironment = lazy(() => z.strictObject({
  id: built(slug),
  name: text,
  publisher: text,
  summary: text,
  category: text,
  source_url: z.url(),
  code_license: z.string().optional(),
  data_license: z.string().optional(),
  reward_type: z.string().optional(),
  reward_description: z.string().optional(),
  modes: z.array(built(runMode)).min(1),
  readiness: z.string().optional(),
  requirements: z.array(z.string()).optional(),
  launch: built(CatalogLaunch).optional(),
}));
export type CatalogEnvironment = z.infer<typeof CatalogEnvironment>;
export type RunnableEnvironment = CatalogEnvironment & { launch: z.infer<typeof CatalogLaunch> };

/** `custom` names your own runs in RLMetadata; a catalog entry may not take it. */
const RESERVED_IDS = new Set(['custom']);

/** Rules that tie fields of one environment together, as [field, problem]. */
export function checkEnvironment(e: CatalogEnvironment): [string, string] | undefined {
  if (RESERVED_IDS.has(e.id)) return ['id', `"${e.id}" is reserved for your own runs`];
  if (!e.launch) return undefined;
  const names = new Set<string>();
  for (const [i, path] of e.launch.results.entries()) {
    const name = posix.basename(path);
    if (names.has(name)) return [`launch.results.${i}`, `another result file is also named ${name}; outputs are named by file name`];
    names.add(name);
  }
  const ids = new Set<string>();
  for (const [i, x] of e.launch.examples.entries()) {
    if (ids.has(x.id)) return [`launch.examples.${i}.id`, `"${x.id}" appears twice`];
    ids.add(x.id);
    const m = x.mode ?? 'evaluate';
    if (!e.modes.includes(m)) return [`launch.examples.${i}.mode`, `${m} is not one of the environment's modes (${e.modes.join(', ')})`];
  }
  return undefined;
}

/** The environment's example, when both exist and the environment is runnable. */
export function runnableExample(
  environments: readonly CatalogEnvironment[],
  environmentId: string,
  exampleId: string,
): { environment: RunnableEnvironment; example: CatalogExample } | undefined {
  const environment = environments.find((e) => e.id === environmentId);
  const example = environment?.launch?.examples.find((x) => x.id === exampleId);
  return example ? { environment: environment as RunnableEnvironment, example } : undefined;
}
