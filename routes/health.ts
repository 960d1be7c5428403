import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody } from '../openapi/common.js';
import { lazy } from '../openapi/lazy.js';

const Health = lazy(() => z.object({ status: z.string() }));

export default (async function healthRoutes(app) {
  app.get('/healthz', {
    schema: {
      operationId: 'getLiveness',
      tags: ['health'],
      summary: 'The process is up',
      security: [],
      // Unkeyed, so no 401. The app-wide hooks can still refuse a probe: the URL limit (414), and
      // the Host check (403 host_not_allowed) for a Host that is not one of the mock's names.
      response: { 200: Health, 403: ErrorBody, 414: ErrorBody },
    },
  }, async () => ({ status: 'ok' }));

  app.get('/readyz', {
    schema: {
      operationId: 'getReadiness',
      tags: ['health'],
      summary: 'The database answers',
      security: [],
      response: { 200: Health, 403: ErrorBody, 414: ErrorBody, 503: ErrorBody },
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
