import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ResetResult } from '../../openapi/mock.js';

export default (async function mockResetRoutes(app) {
  app.post('/reset', {
    schema: {
      operationId: 'resetMockTenant',
      tags: ['mock'],
      summary: 'Delete everything this tenant owns (workloads, keys, faults, overrides, budget, journal); clock back to the defaults',
      response: { 200: ResetResult },
    },
  }, async (request) => ({ reset: true as const, deleted: app.services.control.reset(request.tenant.id) }));
}) satisfies FastifyPluginAsyncZod;
