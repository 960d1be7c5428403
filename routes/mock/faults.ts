import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Fault, FaultList, FaultRule } from '../../openapi/mock.js';
import { FaultParams } from '../../openapi/params.js';
import { presentFault } from '../../server/http/views/fault.js';
import { lazy } from '../../openapi/lazy.js';

/**
 * Fault rules, kept as data so a test scripts failures by method and path; server/http/api-hooks.ts
 * applies them.
 */
export default (async function mockFaultRoutes(app) {
  const { control } = app.services;

  app.post('/faults', {
    schema: {
      operationId: 'createMockFault',
      tags: ['mock'],
      summary: 'Add a fault rule for this tenant\'s /v1 requests: error, delay, reset or drop_response',
      body: FaultRule,
      response: { 201: Fault },
    },
  }, async (request, reply) => reply.code(201).send(presentFault(control.addFault(request.tenant.id, request.body))));

  app.get('/faults', {
    schema: {
      operationId: 'listMockFaults',
      tags: ['mock'],
      summary: 'This tenant\'s fault rules, oldest first, with remaining counts (exhausted ones included)',
      response: { 200: FaultList },
    },
  }, async (request) => ({ faults: control.faults(request.tenant.id).map(presentFault) }));

  app.delete('/faults/:id', {
    schema: { operationId: 'deleteMockFault', tags: ['mock'], summary: 'Remove one fault rule', params: FaultParams, response: { 204: lazy(() => z.null()) } },
  }, async (request, reply) => {
    control.removeFault(request.tenant.id, request.params.id);
    return reply.code(204).send(null);
  });

  app.delete('/faults', {
    schema: { operationId: 'clearMockFaults', tags: ['mock'], summary: 'Remove all of this tenant\'s fault rules', response: { 204: lazy(() => z.null()) } },
  }, async (request, reply) => {
    control.clearFaults(request.tenant.id);
    return reply.code(204).send(null);
  });
}) satisfies FastifyPluginAsyncZod;
