import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import { DropEventsRequest, FailRequest, InterventionResult, RecoverRequest } from '../../openapi/mock.js';
import type { WorkloadRow } from '../../store/workloads.js';
import { ApiError } from '../../server/domain/errors.js';
import { isTerminal } from '../../server/simulator/types.js';
import { currentWorkload } from '../../server/domain/workloads/rows.js';
import { WorkloadParams } from '../../openapi/params.js';

function result(app: FastifyInstance, row: WorkloadRow) {
  const counters = app.store.rlEvents.counters(row.id);
  return { workload_id: row.id, status: row.status, generation: row.generation, dropped_events: counters.dropped, truncated: counters.truncated };
}

/** Runs `change` on the tenant's workload, materialised to now, in one transaction. */
function onWorkload(app: FastifyInstance, tenantId: string, id: string, change: (row: WorkloadRow, nowMs: number) => WorkloadRow) {
  return app.store.write(() => {
    const row = currentWorkload(app, tenantId, id);
    return result(app, change(row, app.clock.nowMs(tenantId)));
  });
}

const refuse = (row: WorkloadRow, what: string) =>
  new ApiError(409, 'invalid_workload_state', `cannot ${what} workload ${row.id} while it is ${row.status}`);

/** Workload interventions (control-api.md): what a real run suffers, on demand. */
export default (async function mockWorkloadRoutes(app) {
  app.post('/workloads/:id/recover', {
    schema: {
      tags: ['mock'],
      summary: 'Interrupt and recover the run: recovering, then running in generation + 1, replaying the last N task events',
      params: WorkloadParams,
      body: RecoverRequest,
      response: { 200: InterventionResult, ...errorResponses },
    },
  }, async (request) =>
    onWorkload(app, request.tenant.id, request.params.id, (row, nowMs) => {
      if (row.status !== 'running' && row.status !== 'provisioning') throw refuse(row, 'recover');
      return app.materialiser.intervene(row, nowMs, 'recover', { replayLast: request.body.replay_last ?? 0 });
    }));

  app.post('/workloads/:id/drop-events', {
    schema: {
      tags: ['mock'],
      summary: 'Count N task events as lost: dropped_events += N, truncated true',
      params: WorkloadParams,
      body: DropEventsRequest,
      response: { 200: InterventionResult, ...errorResponses },
    },
  }, async (request) =>
    onWorkload(app, request.tenant.id, request.params.id, (row, nowMs) => {
      app.store.runtime.addIntervention(row.id, nowMs, 'drop_events', { count: request.body.count });
      app.store.rlEvents.drop(row.id, request.body.count);
      return row;
    }));

  app.post('/workloads/:id/fail', {
    schema: {
      tags: ['mock'],
      summary: 'End the workload as failed',
      params: WorkloadParams,
      body: FailRequest,
      response: { 200: InterventionResult, ...errorResponses },
    },
  }, async (request) =>
    onWorkload(app, request.tenant.id, request.params.id, (row, nowMs) => {
      if (isTerminal(row.status)) throw refuse(row, 'fail');
      return app.materialiser.intervene(row, nowMs, 'fail', { reason: request.body.reason ?? 'failed on request (POST /_mock/workloads/{id}/fail)' });
    }));
}) satisfies FastifyPluginAsyncZod;
