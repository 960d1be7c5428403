import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { WorkloadParams } from '../../openapi/params.js';
import { RLSummary } from '../../openapi/rl-evidence.js';

export default (async function rlSummaryRoutes(app) {
  const { evidence } = app.services;

  app.get('/workloads/:id/rl-summary', {
    schema: {
      operationId: 'getRLSummary',
      tags: ['RL'],
      summary: 'Per-phase tallies of the task evidence and the before/after comparison',
      params: WorkloadParams,
      response: { 200: RLSummary },
    },
  }, async (request) => evidence.summary(request.tenant.id, request.params.id));
}) satisfies FastifyPluginAsyncZod;
