import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BinaryBody, errorResponses } from '../../openapi/common.js';
import { OutputHeaders } from '../../openapi/headers.js';
import { OutputParams, OutputQuery, WorkloadParams } from '../../openapi/params.js';
import { Output } from '../../openapi/workloads.js';
import { RESPONSE_HEADERS } from '../../server/http/openapi-document.js';
import { outputListView } from '../../server/http/views/outputs.js';
import { built, lazy } from '../../openapi/lazy.js';

export default (async function outputRoutes(app) {
  const { workloads } = app.services;

  app.get('/workloads/:id/outputs', {
    schema: {
      operationId: 'listWorkloadOutputs',
      tags: ['Workloads'],
      summary: 'Outputs of completed stages, with their SHA-256 and size',
      params: WorkloadParams,
      response: { 200: lazy(() => z.object({ workload_id: z.string(), outputs: z.array(built(Output)) })) },
    },
  }, async (request) => {
    const { workloadId, outputs } = workloads.outputs(request.tenant.id, request.params.id);
    return outputListView(workloadId, outputs);
  });

  app.get('/workloads/:id/outputs/:name', {
    schema: {
      operationId: 'downloadWorkloadOutput',
      tags: ['Workloads'],
      summary: 'One output file; X-Nodus-SHA256 carries its digest',
      params: OutputParams,
      querystring: OutputQuery,
      response: {
        200: { description: 'the file\'s bytes; X-Nodus-SHA256 carries their digest', content: { 'application/octet-stream': { schema: BinaryBody } } },
        ...errorResponses(409),
      },
      [RESPONSE_HEADERS]: { 200: OutputHeaders },
    },
  }, async (request, reply) => {
    const output = workloads.output(request.tenant.id, request.params.id, request.params.name, request.query.stage);
    return reply
      .header('x-nodus-sha256', output.sha256)
      .header('x-nodus-stage-id', output.stageId)
      .type('application/octet-stream')
      .send(output.content);
  });
}) satisfies FastifyPluginAsyncZod;
