import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { JournalList, JournalQuery } from '../../openapi/mock.js';
import { presentJournalRow } from '../../server/http/views/journal.js';

/** The request journal that server/http/journal.ts writes. */
export default (async function mockRequestRoutes(app) {
  app.get('/requests', {
    schema: {
      tags: ['mock'],
      summary: 'What this tenant\'s clients sent to /v1, newest first; path is exact or a prefix ending in *',
      querystring: JournalQuery,
      response: { 200: JournalList, ...errorResponses },
    },
  }, async (request) => {
    const { limit, method, path } = request.query;
    const prefix = path?.endsWith('*') ?? false;
    const rows = app.store.journal.list(request.tenant.id, {
      limit,
      method: method?.toUpperCase(),
      path: prefix ? path!.slice(0, -1) : path,
      prefix,
    });
    return { requests: rows.map(presentJournalRow) };
  });

  app.delete('/requests', {
    schema: { tags: ['mock'], summary: 'Clear this tenant\'s request journal', response: { 204: z.null(), ...errorResponses } },
  }, async (request, reply) => {
    app.store.journal.clear(request.tenant.id);
    return reply.code(204).send(null);
  });
}) satisfies FastifyPluginAsyncZod;
