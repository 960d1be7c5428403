import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import {
  GradingPlanResult,
  GradingPlanUpdate,
  IngestEventsQuery,
  IngestEventsRequest,
  IngestEventsResult,
  IngestEventsText,
} from '../../openapi/mock.js';
import { WorkloadParams } from '../../openapi/params.js';
import type { IngestJson } from '../../server/domain/evidence/ingest.js';

/** Task evidence on demand (docs/control-api.md, workload interventions): reported events, grading plans. */
export default (async function mockEvidenceRoutes(app) {
  const { evidence } = app.services;

  app.post('/workloads/:id/rl-events', {
    schema: {
      operationId: 'ingestMockRLEvents',
      tags: ['mock'],
      summary: 'Ingest application-reported RL events as the runner would; invalid events are rejected one by one, valid ones kept',
      params: WorkloadParams,
      querystring: IngestEventsQuery,
      // Fastify validates a body per media type; server/http/openapi-document.ts documents each.
      body: { content: { 'application/json': { schema: IngestEventsRequest }, 'text/plain': { schema: IngestEventsText } } },
      response: { 200: IngestEventsResult, ...errorResponses(409) },
    },
  }, async (request) =>
    evidence.ingest(request.tenant.id, request.params.id, request.body as IngestJson | string | undefined, request.query));

  app.put('/workloads/:id/grading-plan', {
    schema: {
      operationId: 'putMockGradingPlan',
      tags: ['mock'],
      summary: 'Create or replace the private grading plan of one revision, with given, simulated or derived receipts',
      params: WorkloadParams,
      body: GradingPlanUpdate,
      response: { 200: GradingPlanResult },
    },
  }, async (request) => evidence.putGradingPlan(request.tenant.id, request.params.id, request.body));
}) satisfies FastifyPluginAsyncZod;
