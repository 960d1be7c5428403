import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { NoStoreHeaders } from '../../openapi/headers.js';
import { RLEventPageQuery, WorkloadParams } from '../../openapi/params.js';
import { RLEventPage } from '../../openapi/rl-evidence.js';
import { sendEncodedJson } from '../../server/http/encoded.js';
import { RESPONSE_HEADERS } from '../../server/http/openapi-document.js';
import { rlEventPageJson } from '../../server/http/views/evidence.js';

export default (async function rlEventRoutes(app) {
  const { evidence } = app.services;

  app.get('/workloads/:id/rl-events', {
    schema: {
      operationId: 'listWorkloadRLEvents',
      tags: ['Workloads'],
      summary: 'RL task evidence, keyset-paged with opaque cursors',
      params: WorkloadParams,
      querystring: RLEventPageQuery,
      response: { 200: RLEventPage },
      [RESPONSE_HEADERS]: { 200: NoStoreHeaders },
    },
    config: { validationCodes: { 'querystring.limit': 'invalid_limit', 'querystring.after': 'invalid_cursor' } },
  }, async (request, reply) => {
    const page = evidence.eventPage(request.tenant.id, request.params.id, request.query.after, request.query.limit);
    reply.header('cache-control', 'no-store');
    // Stored event text goes out as it is, past the serializer (views/evidence.ts says why).
    return sendEncodedJson(reply, 200, rlEventPageJson(page));
  });
}) satisfies FastifyPluginAsyncZod;
