import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { SubmitResult, Workload, WorkloadEvent, WorkloadListItem, WorkloadPayload } from '../../openapi/workloads.js';
import { canonicalSha256 } from '../../server/domain/canonical.js';
import { isoTime } from '../../server/domain/clock.js';
import { admitCustomWorkload, checkSubmission } from '../../server/domain/launches/custom-runs.js';
import { ApiError } from '../../server/domain/errors.js';
import { answerIdempotently, keyBeforeBody } from '../../server/http/idempotency.js';
import { stateAt } from '../../server/simulator/index.js';
import { isTerminal, WORKLOAD_STATUSES } from '../../server/simulator/types.js';
import { listItemView, workloadView } from '../../server/http/views/workload.js';
import { currentWorkload } from '../../server/domain/workloads/rows.js';

export const WorkloadParams = z.object({ id: z.string().min(1).max(128) });

/** Where the SDK's remedy table has a code for a field, the 400 carries it. */
const SUBMIT_VALIDATION_CODES = {
  'body.requirements.compute_class': 'invalid_compute_class',
  'body.continuity.mode': 'invalid_continuity_mode',
  'body.outcome.complete_by': 'invalid_complete_by',
  'body.rl': 'invalid_rl',
};

const ListQuery = z.object({
  // The contract: absent, <= 0 or > 100 means 50.
  limit: z.coerce.number().int().optional(),
  offset: z.coerce.number().int().min(0).optional(),
  status: z.string().max(512).optional().describe('comma list of statuses, `active` or `terminal`; unknown tokens are ignored'),
  scope: z.enum(['mine', 'team']).optional(),
});

const ACTIVE = WORKLOAD_STATUSES.filter((s) => !isTerminal(s));

function statusFilter(raw: string | undefined): string[] {
  if (!raw) return [];
  const wanted = new Set<string>();
  for (const token of raw.split(',').map((t) => t.trim())) {
    if (token === 'active') ACTIVE.forEach((s) => wanted.add(s));
    else if (token === 'terminal') WORKLOAD_STATUSES.filter(isTerminal).forEach((s) => wanted.add(s));
    else if ((WORKLOAD_STATUSES as readonly string[]).includes(token)) wanted.add(token);
  }
  // Only unknown tokens: nothing can match them.
  return wanted.size ? [...wanted] : ['__none__'];
}

export default (async function workloadRoutes(app) {
  app.post('/workloads', {
    schema: {
      operationId: 'createWorkload',
      tags: ['Workloads'],
      summary: 'Submit a workload (Idempotency-Key required; a same-key retry replays)',
      body: WorkloadPayload,
      response: { 202: SubmitResult, ...errorResponses },
    },
    config: { validationCodes: SUBMIT_VALIDATION_CODES },
    preValidation: keyBeforeBody,
  }, async (request, reply) =>
    answerIdempotently(app, request, reply, {
      scope: 'POST /v1/workloads',
      fingerprint: canonicalSha256(request.body),
      admit: (nowMs) => admitCustomWorkload(app, request.tenant.id, request.body, nowMs),
    }));

  app.post('/workloads/validate', {
    schema: {
      operationId: 'validateWorkload',
      tags: ['Workloads'],
      summary: 'Check a payload without submitting it: no admission, no spend',
      body: WorkloadPayload,
      response: {
        200: z.object({ valid: z.literal(true), submitted: z.literal(false), workload: WorkloadPayload, message: z.string() }),
        ...errorResponses,
      },
    },
    config: { validationCodes: SUBMIT_VALIDATION_CODES },
  }, async (request) => {
    checkSubmission(app, request.body);
    return { valid: true as const, submitted: false as const, workload: request.body, message: 'the workload is valid; nothing was submitted' };
  });

  app.get('/workloads', {
    schema: {
      operationId: 'listWorkloads',
      tags: ['Workloads'],
      summary: 'Workloads of this tenant, newest first; next_offset is omitted on the last page',
      querystring: ListQuery,
      response: { 200: z.object({ workloads: z.array(WorkloadListItem), next_offset: z.int().optional() }), ...errorResponses },
    },
  }, async (request) => {
    const { limit: rawLimit, offset = 0, status, scope } = request.query;
    if (scope === 'mine') {
      throw new ApiError(403, 'attribution_required', 'scope=mine needs a member credential; this key is a team key (use scope=team)');
    }
    const limit = rawLimit === undefined || rawLimit <= 0 || rawLimit > 100 ? 50 : rawLimit;
    const tenantId = request.tenant.id;
    return app.store.write(() => {
      app.materialiser.materialiseTenant(tenantId, app.clock.nowMs(tenantId));
      const rows = app.store.workloads.list(tenantId, statusFilter(status), limit + 1, offset);
      const page = rows.slice(0, limit).map((row) => {
        const ctx = app.materialiser.context(row);
        const state = stateAt(ctx.spec, ctx.interventions, row.materialisedToMs, ctx.timeline);
        return listItemView(row, state.accruingRateUsdHour, state.terminal);
      });
      return rows.length > limit ? { workloads: page, next_offset: offset + limit } : { workloads: page };
    });
  });

  app.get('/workloads/:id', {
    schema: {
      operationId: 'getWorkload',
      tags: ['Workloads'],
      summary: 'One workload, materialised up to this tenant\'s virtual now',
      params: WorkloadParams,
      response: { 200: Workload, ...errorResponses },
    },
  }, async (request) =>
    app.store.write(() => {
      const row = currentWorkload(app, request.tenant.id, request.params.id);
      return workloadView(row, app.materialiser.context(row));
    }));

  app.post('/workloads/:id/cancel', {
    schema: {
      operationId: 'cancelWorkload',
      tags: ['Workloads'],
      summary: 'Request cancellation; a finished workload is left as it is',
      params: WorkloadParams,
      response: { 202: z.object({ status: z.string() }), ...errorResponses },
    },
  }, async (request, reply) => {
    // The SDK sends a fresh Idempotency-Key on every cancel; cancelling twice is harmless anyway.
    app.store.write(() => {
      const tenantId = request.tenant.id;
      const row = currentWorkload(app, tenantId, request.params.id);
      if (!isTerminal(row.status)) app.materialiser.intervene(row, app.clock.nowMs(tenantId), 'cancel');
    });
    return reply.code(202).send({ status: 'cancel_requested' });
  });

  app.get('/workloads/:id/events', {
    schema: {
      operationId: 'listWorkloadEvents',
      tags: ['Workloads'],
      summary: 'Lifecycle events after the given sequence id, ascending, at most 100',
      params: WorkloadParams,
      querystring: z.object({ after: z.coerce.number().int().min(0).optional() }),
      response: { 200: z.object({ events: z.array(WorkloadEvent) }), ...errorResponses },
    },
  }, async (request) =>
    app.store.write(() => {
      const row = currentWorkload(app, request.tenant.id, request.params.id);
      const events = app.store.runtime.events(row.id, request.query.after ?? 0, 100).map((e) => ({
        id: e.seq,
        event_id: e.eventId,
        event_type: e.eventType,
        payload: JSON.parse(e.payload) as Record<string, unknown>,
        created_at: isoTime(e.createdAtMs),
      }));
      return { events };
    }));
}) satisfies FastifyPluginAsyncZod;
