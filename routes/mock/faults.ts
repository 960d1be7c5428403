import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { Fault, FaultList, FaultRule } from '../../openapi/mock.js';
import { notFound } from '../../server/domain/errors.js';
import { addFault } from '../../server/domain/control/faults.js';
import { presentFault } from '../../server/http/views/fault.js';

const FaultId = z.object({ id: z.string().min(1).max(64) });

/** Fault rules (design decision 9); server/http/faults.ts applies them. */
export default (async function mockFaultRoutes(app) {
  app.post('/faults', {
    schema: {
      tags: ['mock'],
      summary: 'Add a fault rule for this tenant\'s /v1 requests: error, delay, reset or drop_response',
      body: FaultRule,
      response: { 201: Fault, ...errorResponses },
    },
  }, async (request, reply) => reply.code(201).send(presentFault(addFault(app, request.tenant.id, request.body, 'api'))));

  app.get('/faults', {
    schema: {
      tags: ['mock'],
      summary: 'This tenant\'s fault rules, oldest first, with remaining counts (exhausted ones included)',
      response: { 200: FaultList, ...errorResponses },
    },
  }, async (request) => ({ faults: app.store.faults.list(request.tenant.id).map(presentFault) }));

  app.delete('/faults/:id', {
    schema: { tags: ['mock'], summary: 'Remove one fault rule', params: FaultId, response: { 204: z.null(), ...errorResponses } },
  }, async (request, reply) => {
    if (!app.store.faults.delete(request.tenant.id, request.params.id)) throw notFound(`fault ${request.params.id}`);
    return reply.code(204).send(null);
  });

  app.delete('/faults', {
    schema: { tags: ['mock'], summary: 'Remove all of this tenant\'s fault rules', response: { 204: z.null(), ...errorResponses } },
  }, async (request, reply) => {
    app.store.faults.clear(request.tenant.id);
    return reply.code(204).send(null);
  });
}) satisfies FastifyPluginAsyncZod;
