import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import { DropEventsRequest, FailRequest, InterventionResult, RecoverRequest } from '../../openapi/mock.js';
import { WorkloadParams } from '../../openapi/params.js';
import { interventionView } from '../../server/http/views/intervention.js';

/** Workload interventions (docs/control-api.md): what a real run suffers, on demand. */
export default (async function mockWorkloadRoutes(app) {
  const { workloads } = app.services;

  app.post('/workloads/:id/recover', {
    schema: {
      operationId: 'recoverMockWorkload',
      tags: ['mock'],
      summary: 'Interrupt and recover the run: recovering, then running in generation + 1, replaying the last N task events',
      params: WorkloadParams,
      body: RecoverRequest,
      response: { 200: InterventionResult, ...errorResponses(409) },
    },
  }, async (request) => interventionView(workloads.recover(request.tenant.id, request.params.id, request.body.replay_last)));

  app.post('/workloads/:id/drop-events', {
    schema: {
      operationId: 'dropMockWorkloadEvents',
      tags: ['mock'],
      summary: 'Count N task events as lost: dropped_events += N, truncated true',
      params: WorkloadParams,
      body: DropEventsRequest,
      response: { 200: InterventionResult },
    },
  }, async (request) => interventionView(workloads.dropEvents(request.tenant.id, request.params.id, request.body.count)));

  app.post('/workloads/:id/fail', {
    schema: {
      operationId: 'failMockWorkload',
      tags: ['mock'],
      summary: 'End the workload as failed',
      params: WorkloadParams,
      body: FailRequest,
      response: { 200: InterventionResult, ...errorResponses(409) },
    },
  }, async (request) => interventionView(workloads.fail(request.tenant.id, request.params.id, request.body.reason)));
}) satisfies FastifyPluginAsyncZod;
