import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import { RLSummary } from '../../openapi/rl-evidence.js';
import { summarise } from '../../server/domain/evidence/summary.js';
import { currentWorkload } from '../../server/domain/workloads/rows.js';
import { WorkloadParams } from '../../openapi/params.js';

export default (async function rlSummaryRoutes(app) {
  app.get('/workloads/:id/rl-summary', {
    schema: {
      operationId: 'getRLSummary',
      tags: ['RL'],
      summary: 'Per-phase tallies of the task evidence and the before/after comparison',
      params: WorkloadParams,
      response: { 200: RLSummary, ...errorResponses },
    },
  }, async (request) =>
    app.store.write(() => {
      const row = currentWorkload(app, request.tenant.id, request.params.id);
      return summarise(row.id, app.store.rlEvents.reports(row.id), app.store.rlEvents.counters(row.id));
    }));
}) satisfies FastifyPluginAsyncZod;
