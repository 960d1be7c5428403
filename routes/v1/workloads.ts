import type { preValidationHookHandler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { WorkloadParams } from '../../openapi/params.js';
import { Workload, WorkloadEvent, WorkloadListItem } from '../../openapi/workloads.js';
import { SubmitResult, WorkloadPayload } from '../../openapi/workload-payload.js';
import { isoTime } from '../../server/domain/clock.js';
import { KeyedHeaders, ReplayedHeaders } from '../../openapi/headers.js';
import { answerIdempotently, keyBeforeBody } from '../../server/http/idempotency.js';
import { RESPONSE_HEADERS } from '../../server/http/openapi-document.js';
import { listItemView } from '../../server/domain/workloads/view.js';
import { refuseClientRecipe } from '../../server/domain/launches/custom-runs.js';
import { built, lazy } from '../../openapi/lazy.js';


/** Where the SDK's remedy table has a code for a field, the 400 carries it. */
const SUBMIT_VALIDATION_CODES = {
  'body.requirements.compute_class': 'invalid_compute_class',
  'body.continuity.mode': 'invalid_continuity_mode',
  'body.outcome.complete_by': 'invalid_complete_by',
  'body.rl': 'invalid_rl',
};

// Before the schema: any `rl.recipe` gets the server-owned refusal, whatever its shape.
const refuseRecipeKey: preValidationHookHandler = (request, _reply, done) => {
  refuseClientRecipe(request.body);
  done();
};

const ListQuery = lazy(() => z.object({
  // The contract: absent, <= 0 or > 100 means 50.
  limit: z.coerce.number().int().optional(),
  offset: z.coerce.number().int().min(0).optional(),
  status: z.string().max(512).optional().describe('comma list of statuses, `active` or `terminal`; unknown tokens are ignored'),
  scope: z.enum(['mine', 'team']).default('team'),
}));

export default (async function workloadRoutes(app) {
  const { workloads } = app.services;

  app.post('/workloads', {
    schema: {
      operationId: 'createWorkload',
      tags: ['Workloads'],
      summary: 'Submit a workload (Idempotency-Key required; a same-key retry replays)',
      headers: KeyedHeaders,
      body: WorkloadPayload,
      response: { 202: SubmitResult, ...errorResponses(402, 409) },
      [RESPONSE_HEADERS]: { 202: ReplayedHeaders },
    },
    config: { validationCodes: SUBMIT_VALIDATION_CODES },
    preValidation: [keyBeforeBody(workloads.knownSubmitReplay), refuseRecipeKey],
  }, async (request, reply) =>
    answerIdempotently(reply, workloads.submit(request.tenant.id, request.headers['idempotency-key'], request.body, request.rawBody)));

  app.post('/workloads/validate', {
    schema: {
      operationId: 'validateWorkload',
      tags: ['Workloads'],
      summary: 'Check a payload without submitting it: no admission, no spend',
      body: WorkloadPayload,
      response: {
        200: lazy(() => z.object({ valid: z.literal(true), submitted: z.literal(false), workload: built(WorkloadPayload), message: z.string() })),
      },
    },
    config: { validationCodes: SUBMIT_VALIDATION_CODES },
  }, async (request) => {
    workloads.validate(request.tenant.id, request.body);
    return { valid: true as const, submitted: false as const, workload: request.body, message: 'the workload is valid; nothing was submitted' };
  });

  app.get('/workloads', {
    schema: {
      operationId: 'listWorkloads',
      tags: ['Workloads'],
      summary: 'Workloads of this tenant, newest first; next_offset is omitted on the last page',
      querystring: ListQuery,
      response: { 200: lazy(() => z.object({ workloads: z.array(built(WorkloadListItem)), next_offset: z.int().optional() })), ...errorResponses(403) },
    },
  }, async (request) => {
    const { workloads: listed, nextOffset } = await workloads.list(request.tenant.id, request.query);
    const page = listed.map((w) => listItemView(w.row, w.accruingRateUsdHour, w.terminal));
    return nextOffset === undefined ? { workloads: page } : { workloads: page, next_offset: nextOffset };
  });

  app.get('/workloads/:id', {
    schema: {
      operationId: 'getWorkload',
      tags: ['Workloads'],
      summary: 'One workload, materialised up to this tenant\'s virtual now',
      params: WorkloadParams,
      response: { 200: Workload },
    },
  }, async (request) => workloads.describe(request.tenant.id, request.params.id));

  app.post('/workloads/:id/cancel', {
    schema: {
      operationId: 'cancelWorkload',
      tags: ['Workloads'],
      summary: 'Request cancellation; a finished workload is left as it is',
      params: WorkloadParams,
      response: { 202: lazy(() => z.object({ status: z.string() })) },
    },
  }, async (request, reply) => {
    workloads.cancel(request.tenant.id, request.params.id);
    return reply.code(202).send({ status: 'cancel_requested' });
  });

  app.get('/workloads/:id/events', {
    schema: {
      operationId: 'listWorkloadEvents',
      tags: ['Workloads'],
      summary: 'Lifecycle events after the given sequence id, ascending, at most 100',
      params: WorkloadParams,
      querystring: lazy(() => z.object({ after: z.coerce.number().int().min(0).optional() })),
      response: { 200: lazy(() => z.object({ events: z.array(built(WorkloadEvent)) })) },
    },
  }, async (request) => ({
    events: workloads.events(request.tenant.id, request.params.id, request.query.after ?? 0).map((e) => ({
      id: e.seq,
      event_id: e.eventId,
      event_type: e.eventType,
      payload: JSON.parse(e.payload) as Record<string, unknown>,
      created_at: isoTime(e.createdAtMs),
    })),
  }));
}) satisfies FastifyPluginAsyncZod;
