import type { z } from 'zod';
import type { RLRecipeRequest, RLRunRequest } from '../../../openapi/rl-recipes.js';
import type { WorkloadPayload } from '../../../openapi/workloads.js';
import { canonicalSha256 } from '../canonical.js';
import type { DomainContext } from '../context.js';
import { admitExampleRun, exampleWorkload, findExample } from './example-runs.js';
import { admitOnce } from './idempotency.js';
import { createRecipeLists } from './recipes.js';
import { admitLaunch, previewRun } from './rl-runs.js';

/** Managed RL runs: the recipe list, preview and launch with the review token; catalog example runs. */
export function createLaunchService(deps: DomainContext) {
  return {
    /** The catalog's recipes with this tenant's availability; the same object while that stays the same. */
    recipes: createRecipeLists(deps),

    preview(tenantId: string, request: z.output<typeof RLRecipeRequest>) {
      return previewRun(deps, tenantId, request);
    },

    /** POST /v1/rl-runs: admitted once per Idempotency-Key. */
    launch(tenantId: string, key: string, body: z.output<typeof RLRunRequest>) {
      // The fingerprint is also the workload's recorded request_sha256.
      const fingerprint = canonicalSha256(body);
      return admitOnce(deps, tenantId, key, {
        scope: 'POST /v1/rl-runs',
        fingerprint,
        admit: (nowMs) => admitLaunch(deps, tenantId, body, fingerprint, nowMs),
      });
    },

    /** The workload an example's run would submit under its default name; starts nothing. */
    exampleWorkload(environmentId: string, exampleId: string): WorkloadPayload {
      const { environment, example } = findExample(deps, environmentId, exampleId);
      return exampleWorkload(environment, example);
    },

    /** POST /v1/rl-environments/{environment}/examples/{example}/runs: admitted once per key. */
    runExample(tenantId: string, key: string, environment: string, example: string, name: string | undefined) {
      return admitOnce(deps, tenantId, key, {
        // One scope for every example: the same key with another example or name is a conflict.
        scope: 'POST /v1/rl-environments/{environment}/examples/{example}/runs',
        // A retry is the same request when it names the same environment, example and name, however
        // the body spells it (absent, `{}`); the catalog's state does not enter.
        fingerprint: canonicalSha256({ environment, example, name: name ?? null }),
        admit: (nowMs) => admitExampleRun(deps, tenantId, environment, example, name, nowMs),
      });
    },
  };
}
