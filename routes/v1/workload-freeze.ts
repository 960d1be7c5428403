import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import { WorkloadParams } from '../../openapi/params.js';
import { WorkloadFreeze } from '../../openapi/workloads.js';

// The contract declares no request body for these POSTs; the SDK sends `{}`. Any JSON body, or
// none, is accepted and ignored.
export default (async function workloadFreezeRoutes(app) {
  const { workloads } = app.services;

  app.post('/workloads/:id/freeze', {
    schema: {
      operationId: 'freezeWorkload',
      tags: ['Workloads'],
      summary: 'Freeze an active workload: its state is saved and its compute released; no progress and no spend until resumed',
      params: WorkloadParams,
      response: { 202: WorkloadFreeze, ...errorResponses(409) },
    },
  }, async (request, reply) => reply.code(202).send(workloads.freeze(request.tenant.id, request.params.id)));

  app.get('/workloads/:id/freeze', {
    schema: {
      operationId: 'getWorkloadFreeze',
      tags: ['Workloads'],
      summary: 'The workload\'s latest freeze and where it stands; 404 when it was never frozen',
      params: WorkloadParams,
      response: { 200: WorkloadFreeze },
    },
  }, async (request) => workloads.freezeState(request.tenant.id, request.params.id));

  app.post('/workloads/:id/resume', {
    schema: {
      operationId: 'resumeWorkload',
      tags: ['Workloads'],
      summary: 'Resume a frozen (or freezing) workload where it stopped',
      params: WorkloadParams,
      response: { 202: WorkloadFreeze, ...errorResponses(409) },
    },
  }, async (request, reply) => reply.code(202).send(workloads.resume(request.tenant.id, request.params.id)));
}) satisfies FastifyPluginAsyncZod;
