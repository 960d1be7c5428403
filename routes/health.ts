import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

const Health = z.object({ status: z.string() });

export default (async function healthRoutes(app) {
  app.get('/healthz', {
    schema: { tags: ['health'], summary: 'The process is up', security: [], response: { 200: Health } },
  }, async () => ({ status: 'ok' }));

  app.get('/readyz', {
    schema: {
      tags: ['health'],
      summary: 'The database answers',
      security: [],
      response: { 200: Health, 503: z.object({ error: z.string(), message: z.string() }) },
    },
  }, async (_request, reply) => {
    try {
      app.services.control.ready();
      return { status: 'ready' };
    } catch (err) {
      return reply.code(503).send({ error: 'not_ready', message: `database unavailable: ${(err as Error).message}` });
    }
  });
}) satisfies FastifyPluginAsyncZod;
