import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { lazy } from '../../openapi/lazy.js';

const Me = lazy(() => z.object({
  email: z.string().optional(),
  tenant: z.string(),
  key_id: z.string(),
}).meta({ id: 'Identity' }));

export default (async function meRoutes(app) {
  app.get('/me', {
    schema: {
      operationId: 'identity',
      summary: 'Who this API key is',
      response: { 200: Me },
    },
  }, async (request) => ({ tenant: request.tenant.id, key_id: request.tenant.keyId }));
}) satisfies FastifyPluginAsyncZod;
