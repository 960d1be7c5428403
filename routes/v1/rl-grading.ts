import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { queryInteger } from '../../openapi/primitives.js';
import { RLGradingResults, type RLGradingReceipt } from '../../openapi/rl-evidence.js';
import { ApiError, notFound } from '../../server/domain/errors.js';
import { currentWorkload } from '../../server/domain/workloads/rows.js';
import { WorkloadParams } from '../../openapi/params.js';

/** `revision` alone, once: a repeated one, a missing one or any other parameter is refused. */
const GradingQuery = z.strictObject({ revision: queryInteger(1, 2147483647) });

export default (async function rlGradingRoutes(app) {
  app.get('/workloads/:id/rl-grading-results', {
    schema: {
      operationId: 'getWorkloadRLGradingResults',
      tags: ['Workloads'],
      summary: 'Private grading receipts of one plan revision, with the workload status of the same snapshot',
      params: WorkloadParams,
      querystring: GradingQuery,
      response: { 200: RLGradingResults, ...errorResponses },
    },
    config: { validationCodes: { querystring: 'invalid_revision' } },
  }, async (request, reply) => {
    const { revision } = request.query;
    const results = app.store.write(() => {
      const row = currentWorkload(app, request.tenant.id, request.params.id);
      const plan = app.store.grading.plan(row.id, revision);
      if (!plan) throw notFound(`grading plan revision ${revision} of workload ${row.id}`);
      const receipts = app.store.grading.receipts(row.id, revision) as RLGradingReceipt[];
      // Receipts that name another plan cannot be verified against this one (PUT grading-plan
      // can store such receipts on purpose): the contract's 500 for an unverifiable snapshot.
      const foreign = receipts.find((r) => r.plan_sha256 !== plan.planSha256);
      if (foreign) {
        throw new ApiError(500, 'grading_results_unavailable',
          `receipt ${foreign.attempt_id} names plan ${foreign.plan_sha256}, not revision ${revision}'s plan ${plan.planSha256}: the snapshot cannot be verified`);
      }
      return {
        schema_version: 1 as const,
        workload_id: row.id,
        revision,
        plan_sha256: plan.planSha256,
        parent_status: row.status,
        grading_cleanup_complete: receipts.every((r) => r.cleanup_complete),
        receipts,
      };
    });
    reply.header('cache-control', 'no-store');
    return results;
  });
}) satisfies FastifyPluginAsyncZod;
