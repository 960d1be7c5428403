import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import { NoStoreHeaders } from '../../openapi/headers.js';
import { GradingResultsQuery, WorkloadParams } from '../../openapi/params.js';
import { RLGradingResults } from '../../openapi/rl-evidence.js';
import { RESPONSE_HEADERS } from '../../server/http/openapi-document.js';

export default (async function rlGradingRoutes(app) {
  const { evidence } = app.services;

  app.get('/workloads/:id/rl-grading-results', {
    schema: {
      operationId: 'getWorkloadRLGradingResults',
      tags: ['Workloads'],
      summary: 'Private grading receipts of one plan revision, with the workload status of the same snapshot',
      params: WorkloadParams,
      querystring: GradingResultsQuery,
      response: { 200: RLGradingResults, ...errorResponses(500) },
      [RESPONSE_HEADERS]: { 200: NoStoreHeaders },
    },
    config: { validationCodes: { querystring: 'invalid_revision' } },
  }, async (request, reply) => {
    const results = evidence.gradingResults(request.tenant.id, request.params.id, request.query.revision);
    reply.header('cache-control', 'no-store');
    return results;
  });
}) satisfies FastifyPluginAsyncZod;
