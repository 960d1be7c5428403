import type { z } from 'zod';
import type { RLRecipeRequest, RLRunRequest } from '../../../openapi/rl-recipes.js';
import type { WorkloadPayload } from '../../../openapi/workload-payload.js';
import { canonicalSha256 } from '../json-text.js';
import type { DomainContext } from '../context.js';
import { admitExampleRun, exampleWorkload, findExample } from './example-runs.js';
import { budgetReady } from './admission.js';
import { admitOnce, fingerprintOf } from '../keyed-admission.js';
import { createRecipeLists } from './recipes.js';
import { admitLaunch, launchFingerprint, previewRun } from './rl-runs.js';

/** Managed RL runs: the recipe list, preview and launch with the review token; catalog example runs. */
export function createLaunchService(deps: DomainContext) {
  return {
    /** The catalog's recipes with this tenant's availability; the same object while that stays the same. */
    recipes: createRecipeLists(deps),

    /** Writes when it must: it materialises the tenant for a budget's headroom, and remembers the review under the expiry lever. */
    async preview(tenantId: string, request: z.output<typeof RLRecipeRequest>) {
      await budgetReady(deps, tenantId);
      return deps.units.atNow(tenantId, (unit) => previewRun(deps, unit, request));
    },

    /**
     * POST /v1/rl-runs: admitted once per Idempotency-Key. `text`, the body as sent when the caller
     * has it, lets a retry of the same bytes skip the canonical JSON and its hash.
     */
    launch(tenantId: string, key: string, body: z.output<typeof RLRunRequest>, text?: string | null) {
      // The fingerprint is also the workload's recorded request_sha256.
      const fingerprint = fingerprintOf('rl_run.launch', text, () => launchFingerprint(body));
      return admitOnce(deps, tenantId, key, {
        operation: 'rl_run.launch',
        fingerprint,
        admit: (unit) => admitLaunch(deps, unit, body, fingerprint),
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
