import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { WorkloadParams } from '../../openapi/params.js';
import { Artifact, CustomerLedgerEntry, RoutingPlacement, Settlement } from '../../openapi/workloads.js';
import { built, lazy } from '../../openapi/lazy.js';

export default (async function workloadRecordRoutes(app) {
  const { workloads } = app.services;

  app.get('/workloads/:id/artifacts', {
    schema: {
      operationId: 'listWorkloadArtifacts',
      tags: ['Workloads'],
      summary: 'Checkpoint manifests in the order written: every 5 GRPO steps and the last one, and one per completed freeze',
      params: WorkloadParams,
      response: { 200: lazy(() => z.object({ artifacts: z.array(built(Artifact)) })) },
    },
  }, async (request) => ({ artifacts: workloads.artifacts(request.tenant.id, request.params.id) }));

  app.get('/workloads/:id/ledger', {
    schema: {
      operationId: 'getWorkloadLedger',
      tags: ['Workloads'],
      summary: 'Customer charges per billing hour (credits add up to spend_usd) and the settlement, open until the run ends',
      params: WorkloadParams,
      response: {
        200: lazy(() => z.object({ workload_id: z.string(), entries: z.array(built(CustomerLedgerEntry)), settlement: built(Settlement) })),
      },
    },
  }, async (request) => workloads.ledger(request.tenant.id, request.params.id));

  app.get('/workloads/:id/routing', {
    schema: {
      operationId: 'getWorkloadRouting',
      tags: ['Workloads'],
      summary: 'Where each stage ran, one placement per generation; a recovery adds one',
      params: WorkloadParams,
      response: { 200: lazy(() => z.object({ workload_id: z.string(), placements: z.array(built(RoutingPlacement)) })) },
    },
  }, async (request) => workloads.routing(request.tenant.id, request.params.id));
}) satisfies FastifyPluginAsyncZod;
