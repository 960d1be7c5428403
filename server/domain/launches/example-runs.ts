import { posix } from 'node:path';
import type { WorkloadPayload } from '../../../openapi/workload-payload.js';
import { admitCustomWorkload } from './custom-runs.js';
import type { CatalogExample, RunnableEnvironment } from '../catalog/environments.js';
import { DomainError, notFound } from '../errors.js';
import type { TenantUnit } from '../unit.js';
import type { DomainContext } from '../context.js';
import { canonicalSha256 } from '../json-text.js';
import { admitOnce } from '../keyed-admission.js';

/**
 * Catalog example runs (previewed by GET and submitted by POST under an environment's example): the server builds an ordinary workload from an
 * environment's `launch` and one of its examples, and admits it like POST /v1/workloads would.
 */

/** The name a run gets when the request names none: the environment's and the example's. */
const defaultRunName = (environment: RunnableEnvironment, example: CatalogExample) =>
  `${environment.name}: ${example.name}`.slice(0, 120);

/**
 * The payload an example run submits: the example's shell text run by `sh -c` in the launch
 * image, an accelerator with at least the launch's GPU memory, the result files published as
 * outputs named by file name, and `rl` metadata naming the example.
 */
function exampleWorkload(environment: RunnableEnvironment, example: CatalogExample, name = defaultRunName(environment, example)): WorkloadPayload {
  const { launch } = environment;
  return {
    name,
    requirements: {
      compute_class: 'accelerator',
      model: launch.model,
      ...(launch.peak_memory_gb === undefined ? {} : { peak_memory_gb: launch.peak_memory_gb }),
    },
    outcome: {},
    continuity: { mode: 'checkpointed', resume_on_interruption: true },
    stages: [
      {
        id: 'main',
        source: { image: launch.image, command: ['sh', '-c', example.command] },
        outputs: Object.fromEntries(launch.results.map((path) => [posix.basename(path), path])),
      },
    ],
    rl: {
      schema_version: 1,
      environment_id: environment.id,
      mode: example.mode ?? 'evaluate',
      model: launch.model,
      planned_tasks: launch.default_tasks,
      example_id: example.id,
    },
  };
}

/** The environment and example, or the 404 that says which of them is missing. */
function findExample(deps: DomainContext, environmentId: string, exampleId: string) {
  const environment = deps.catalog.environment(environmentId);
  if (!environment) throw notFound(`environment ${environmentId}`);
  const found = deps.catalog.example(environmentId, exampleId);
  if (!found) {
    throw environment.launch
      ? notFound(`example ${exampleId} of environment ${environmentId}`)
      : new DomainError('not_found', 'not_found', `environment ${environmentId} is listed only: it has no runnable example`);
  }
  return found;
}

/**
 * The admission of POST .../examples/{example}/runs once its key is known to be new. The catalog
 * is read here, not before: a retry of an admitted run replays it even if the catalog changed.
 */
function admitExampleRun(deps: DomainContext, unit: TenantUnit, environmentId: string, exampleId: string, name: string | undefined): string {
  const { environment, example } = findExample(deps, environmentId, exampleId);
  const minutes = example.runtime_minutes;
  return admitCustomWorkload(deps, unit, exampleWorkload(environment, example, name), { example: true, ...(minutes ? { runSeconds: minutes * 60 } : {}) });
}

/** Catalog example runs: what one would submit, and its submission. */
export function exampleRunOperations(deps: DomainContext) {
  return {
    /** The workload an example's run would submit under its default name; starts nothing. */
    exampleWorkload(environmentId: string, exampleId: string): WorkloadPayload {
      const { environment, example } = findExample(deps, environmentId, exampleId);
      return exampleWorkload(environment, example);
    },

    /** POST /v1/rl-environments/{environment}/examples/{example}/runs: admitted once per key. */
    runExample(tenantId: string, key: string, environment: string, example: string, name: string | undefined) {
      return admitOnce(deps, tenantId, key, {
        // One operation for every example: the same key with another example or name is a conflict.
        operation: 'example.run',
        // A retry is the same request when it names the same environment, example and name, however
        // the body spells it (absent, `{}`); the catalog's state does not enter.
        fingerprint: canonicalSha256({ environment, example, name: name ?? null }),
        admit: (unit) => admitExampleRun(deps, unit, environment, example, name),
      });
    },
  };
}
