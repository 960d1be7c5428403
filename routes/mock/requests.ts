import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { JournalList, JournalQuery } from '../../openapi/mock.js';
import { presentJournalRow } from '../../server/http/views/journal.js';

/** The request journal that server/http/journal.ts writes. */
export default (async function mockRequestRoutes(app) {
  const { control } = app.services;

  app.get('/requests', {
    schema: {
      operationId: 'listMockRequests',
      tags: ['mock'],
      summary: 'What this tenant\'s clients sent to /v1, newest first; path is exact or a prefix ending in *',
      querystring: JournalQuery,
      response: { 200: JournalList, ...errorResponses(400) },
    },
  }, async (request) => ({ requests: control.requests(request.tenant.id, request.query).map(presentJournalRow) }));

  app.delete('/requests', {
    schema: { operationId: 'clearMockRequests', tags: ['mock'], summary: 'Clear this tenant\'s request journal', response: { 204: z.null(), ...errorResponses(400, 413, 415) } },
  }, async (request, reply) => {
    control.clearRequests(request.tenant.id);
    return reply.code(204).send(null);
  });
}) satisfies FastifyPluginAsyncZod;
