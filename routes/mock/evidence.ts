import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import {
  GradingPlanResult,
  GradingPlanUpdate,
  IngestEventsQuery,
  IngestEventsRequest,
  IngestEventsResult,
  IngestEventsText,
} from '../../openapi/mock.js';
import type { RLGradingReceipt } from '../../openapi/rl-evidence.js';
import type { WorkloadRow } from '../../store/workloads.js';
import { ApiError, conflict, invalidRequest } from '../../server/domain/errors.js';
import { derivedReceipts } from '../../server/domain/evidence/grading.js';
import { ingestEvents, jsonCandidates, textCandidates, type Candidate } from '../../server/domain/evidence/ingest.js';
import { gradingPlanSha256, type SimSpec } from '../../server/simulator/index.js';
import { currentWorkload } from '../../server/domain/workloads/rows.js';
import { WorkloadParams } from '../../openapi/params.js';

type IngestJson = z.infer<typeof IngestEventsRequest>;

/** The events of either body, with a text body's lines to log as the workload's output. */
function readIngestBody(body: IngestJson | string | undefined): { candidates: Candidate[]; stdout?: string[]; stage_id?: string; generation?: number } {
  // Fastify checks a body per media type only when one is named: a bare POST arrives here unchecked.
  if (body === undefined) throw invalidRequest('body: send {"events": [...]} as application/json, or event lines as text/plain');
  if (typeof body !== 'string') return { stage_id: body.stage_id, generation: body.generation, candidates: jsonCandidates(body.events) };
  const { lines, candidates } = textCandidates(body);
  return { candidates, stdout: lines };
}

/** One value from the body or the query string, never both. */
function eitherOf<T>(name: string, fromBody: T | undefined, fromQuery: T | undefined): T | undefined {
  if (fromBody !== undefined && fromQuery !== undefined) throw invalidRequest(`${name}: give it in the body or in the query string, not both`);
  return fromBody ?? fromQuery;
}

const stageIds = (row: WorkloadRow, spec: SimSpec) =>
  new Set([spec.stageId, ...((JSON.parse(row.payload) as { stages?: Array<{ id: string }> | null }).stages ?? []).map((s) => s.id)]);

/** Task evidence on demand (control-api.md, workload interventions): reported events, grading plans. */
export default (async function mockEvidenceRoutes(app) {
  app.post('/workloads/:id/rl-events', {
    schema: {
      tags: ['mock'],
      summary: 'Ingest application-reported RL events as the runner would; invalid events are rejected one by one, valid ones kept',
      params: WorkloadParams,
      querystring: IngestEventsQuery,
      // Fastify validates a body per media type; app.ts documents each.
      body: { content: { 'application/json': { schema: IngestEventsRequest }, 'text/plain': { schema: IngestEventsText } } },
      response: { 200: IngestEventsResult, ...errorResponses },
    },
  }, async (request) => {
    const body = readIngestBody(request.body as IngestJson | string | undefined);
    return app.store.write(() => {
      const tenantId = request.tenant.id;
      const row = currentWorkload(app, tenantId, request.params.id);
      if (row.kind === 'recipe') {
        throw conflict('recipe_run', `workload ${row.id} is a managed recipe run: its task events come from the simulated runtime. Ingest into a workload submitted with POST /v1/workloads`);
      }
      const { spec } = app.materialiser.context(row);
      const stages = stageIds(row, spec);
      const stageId = eitherOf('stage_id', body.stage_id, request.query.stage_id) ?? spec.stageId;
      if (!stages.has(stageId)) throw new ApiError(400, 'invalid_stage', `stage_id: workload ${row.id} has no stage "${stageId}" (stages: ${[...stages].join(', ')})`);
      const generation = eitherOf('generation', body.generation, request.query.generation) ?? row.generation;
      if (generation > row.generation) {
        throw new ApiError(400, 'invalid_generation', `generation: workload ${row.id} is in generation ${row.generation}; events can come from generations 1 to ${row.generation}`);
      }
      return ingestEvents(app, row, body.candidates, { stageId, generation, nowMs: app.clock.nowMs(tenantId), stdout: body.stdout });
    });
  });

  app.put('/workloads/:id/grading-plan', {
    schema: {
      tags: ['mock'],
      summary: 'Create or replace the private grading plan of one revision, with given, simulated or derived receipts',
      params: WorkloadParams,
      body: GradingPlanUpdate,
      response: { 200: GradingPlanResult, ...errorResponses },
    },
  }, async (request) =>
    app.store.write(() => {
      const tenantId = request.tenant.id;
      const row = currentWorkload(app, tenantId, request.params.id);
      const { spec } = app.materialiser.context(row);
      const { receipts: given, plan_sha256: planHash } = request.body;
      const revision = request.body.revision ?? row.revision;
      // The simulator grades revision 1 of a privately graded recipe run; it can have that back.
      const source = given ? 'given' : spec.privateGrading && revision === 1 ? 'simulated' : 'derived';
      const planSha256 = planHash ?? given?.[0]?.plan_sha256 ?? gradingPlanSha256(spec, revision);
      const nowMs = app.clock.nowMs(tenantId);
      const grading = app.store.grading;
      grading.putPlan(row.id, { revision, planSha256, simulated: source === 'simulated', createdAtMs: nowMs });
      if (source === 'simulated') app.materialiser.restoreSimulatedReceipts(row);
      // Given receipts are all created now, so they list by attempt id; simulated ones were restored above.
      const receipts = given?.map((receipt) => ({ createdAtMs: nowMs, receipt }))
        ?? (source === 'derived' ? derivedReceipts(spec, planSha256, app.store.rlEvents.phaseReports(row.id, 'evaluation')) : []);
      for (const r of receipts) grading.putReceipt(row.id, revision, r.receipt.attempt_id, r.createdAtMs, r.receipt);
      return { workload_id: row.id, revision, plan_sha256: planSha256, source, receipts: grading.receipts(row.id, revision) as RLGradingReceipt[] };
    }));
}) satisfies FastifyPluginAsyncZod;
