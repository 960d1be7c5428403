import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { Output } from '../../openapi/workloads.js';
import { ApiError, notFound } from '../../server/domain/errors.js';
import { workloadOutputs } from '../../server/domain/workloads/outputs.js';
import { currentWorkload } from '../../server/domain/workloads/rows.js';
import { WorkloadParams } from '../../openapi/params.js';

/** The SDK's rule for output names, minus the names that would escape a folder. */
const OUTPUT_NAME = /^(?!\.{1,2}$)[A-Za-z0-9_.-]{1,128}$/;

export default (async function outputRoutes(app) {
  app.get('/workloads/:id/outputs', {
    schema: {
      operationId: 'listWorkloadOutputs',
      tags: ['Workloads'],
      summary: 'Outputs of completed stages, with their SHA-256 and size',
      params: WorkloadParams,
      response: { 200: z.object({ workload_id: z.string(), outputs: z.array(Output) }), ...errorResponses },
    },
  }, async (request) =>
    app.store.write(() => {
      const row = currentWorkload(app, request.tenant.id, request.params.id);
      return {
        workload_id: row.id,
        outputs: workloadOutputs(app, row).map((o) => ({
          name: o.name,
          stage_id: o.stageId,
          sha256: o.sha256,
          bytes: o.content.length,
          download: `/v1/workloads/${row.id}/outputs/${encodeURIComponent(o.name)}?stage=${encodeURIComponent(o.stageId)}`,
        })),
      };
    }));

  app.get('/workloads/:id/outputs/:name', {
    schema: {
      operationId: 'downloadWorkloadOutput',
      tags: ['Workloads'],
      summary: 'One output file; X-Nodus-SHA256 carries its digest',
      params: WorkloadParams.extend({ name: z.string().min(1).max(256) }),
      querystring: z.object({ stage: z.string().max(128).optional(), member_id: z.string().max(128).optional() }),
    },
  }, async (request, reply) => {
    const { id, name } = request.params;
    if (!OUTPUT_NAME.test(name)) throw new ApiError(400, 'invalid_request', 'params.name: output names are letters, digits, `_`, `.` and `-`');
    const row = app.store.write(() => currentWorkload(app, request.tenant.id, id));
    const candidates = workloadOutputs(app, row).filter(
      (o) => o.name === name && (request.query.stage === undefined || o.stageId === request.query.stage),
    );
    if (candidates.length === 0) throw notFound(`output ${name}`);
    if (candidates.length > 1) {
      throw new ApiError(409, 'ambiguous_output', `output ${name} exists in stages ${candidates.map((c) => c.stageId).join(', ')}; pass ?stage=`);
    }
    const [output] = candidates;
    return reply
      .header('x-nodus-sha256', output.sha256)
      .header('x-nodus-stage-id', output.stageId)
      .type('application/octet-stream')
      .send(output.content);
  });
}) satisfies FastifyPluginAsyncZod;
