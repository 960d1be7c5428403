import type { z } from 'zod';
import type { RLRecipeRequest, RLRunRequest } from '../../../openapi/rl-recipes.js';
import { canonicalSha256 } from '../canonical.js';
import type { DomainContext } from '../context.js';
import { admitExampleRun } from './example-runs.js';
import { admitOnce } from './idempotency.js';
import { admitLaunch, previewRun } from './rl-runs.js';

/** Managed RL runs: preview and launch with the review token. */
export function createLaunchService(deps: DomainContext) {
  return {
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
