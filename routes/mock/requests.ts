import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { JournalList, JournalMatch, JournalMatchResult, JournalQuery } from '../../openapi/mock.js';
import { presentJournalMatches, presentJournalRow } from '../../server/http/views/journal.js';
import { lazy } from '../../openapi/lazy.js';

/**
 * The request journal that server/http/journal.ts writes. Reading, matching and clearing it are
 * not journaled themselves (nor is GET /_mock/snapshot, which holds it): a test that reads the
 * journal does not change it.
 */
export default (async function mockRequestRoutes(app) {
  const { control } = app.services;
  const config = { journal: false } as const;

  app.get('/requests', {
    config,
    schema: {
      operationId: 'listMockRequests',
      tags: ['mock'],
      summary: 'What this tenant sent to /v1 and /_mock, newest first, and how many rows were evicted; path matches as fault rules do',
      querystring: JournalQuery,
      response: { 200: JournalList },
    },
  }, async (request) => {
    const { rows, evicted } = control.requests(request.tenant.id, request.query);
    return { requests: rows.map(presentJournalRow), evicted };
  });

  app.post('/requests/match', {
    config,
    schema: {
      operationId: 'matchMockRequests',
      tags: ['mock'],
      summary: 'The journaled requests that match an expectation, oldest first; without a match, the nearest and what differs',
      body: JournalMatch,
      response: { 200: JournalMatchResult },
    },
  }, async (request) => presentJournalMatches(control.matchRequests(request.tenant.id, request.body)));

  app.delete('/requests', {
    config,
    schema: { operationId: 'clearMockRequests', tags: ['mock'], summary: 'Clear this tenant\'s request journal', response: { 204: lazy(() => z.null()) } },
  }, async (request, reply) => {
    control.clearRequests(request.tenant.id);
    return reply.code(204).send(null);
  });
}) satisfies FastifyPluginAsyncZod;
