import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import { WorkloadFreeze } from '../../openapi/workloads.js';
import { ApiError } from '../../server/domain/errors.js';
import { freezeView, requestFreezeChange } from '../../server/domain/workloads/freeze.js';
import { currentWorkload } from '../../server/domain/workloads/rows.js';
import { WorkloadParams } from '../../openapi/params.js';

// The contract declares no request body for these POSTs; the SDK sends `{}`. Any JSON body, or
// none, is accepted and ignored.
export default (async function workloadFreezeRoutes(app) {
  app.post('/workloads/:id/freeze', {
    schema: {
      operationId: 'freezeWorkload',
      tags: ['Workloads'],
      summary: 'Freeze an active workload: its state is saved and its compute released; no progress and no spend until resumed',
      params: WorkloadParams,
      response: { 202: WorkloadFreeze, ...errorResponses },
    },
  }, async (request, reply) => reply.code(202).send(requestFreezeChange(app, request.tenant.id, request.params.id, 'freeze')));

  app.get('/workloads/:id/freeze', {
    schema: {
      operationId: 'getWorkloadFreeze',
      tags: ['Workloads'],
      summary: 'The workload\'s latest freeze and where it stands; 404 when it was never frozen',
      params: WorkloadParams,
      response: { 200: WorkloadFreeze, ...errorResponses },
    },
  }, async (request) =>
    app.store.write(() => {
      const row = currentWorkload(app, request.tenant.id, request.params.id);
      const view = freezeView(row, app.materialiser.context(row));
      if (!view) throw new ApiError(404, 'not_found', `workload ${row.id} was never frozen`);
      return view;
    }));

  app.post('/workloads/:id/resume', {
    schema: {
      operationId: 'resumeWorkload',
      tags: ['Workloads'],
      summary: 'Resume a frozen (or freezing) workload where it stopped',
      params: WorkloadParams,
      response: { 202: WorkloadFreeze, ...errorResponses },
    },
  }, async (request, reply) => reply.code(202).send(requestFreezeChange(app, request.tenant.id, request.params.id, 'resume')));
}) satisfies FastifyPluginAsyncZod;
