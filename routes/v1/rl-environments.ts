import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { RLEnvironment } from '../../openapi/rl-environments.js';
import { SubmitResult, WorkloadPayload } from '../../openapi/workloads.js';
import { notFound } from '../../server/domain/errors.js';
import { exampleWorkload, findExample } from '../../server/domain/launches/example-runs.js';
import { answerIdempotently, requireIdempotencyKey } from '../../server/http/idempotency.js';
import { OPTIONAL_BODY } from '../../server/http/openapi-document.js';

const EnvironmentParams = z.object({ environment: z.string().min(1).max(128) });
const ExampleParams = EnvironmentParams.extend({ example: z.string().min(1).max(128) });

export default (async function rlEnvironmentRoutes(app) {
  app.get('/rl-environments', {
    schema: {
      operationId: 'listRLEnvironments',
      tags: ['RL'],
      summary: 'The environment catalog: what each environment is and, when runnable, its launch and examples',
      response: {
        200: z.object({ schema_version: z.int(), reviewed_at: z.string().optional(), environments: z.array(RLEnvironment) }),
        ...errorResponses,
      },
    },
  }, async () => ({
    schema_version: 1,
    ...(app.catalog.reviewedAt === undefined ? {} : { reviewed_at: app.catalog.reviewedAt }),
    environments: [...app.catalog.environments],
  }));

  app.get('/rl-environments/:environment', {
    schema: {
      operationId: 'getRLEnvironment',
      tags: ['RL'],
      summary: 'One catalog environment, the same entry as in the list',
      params: EnvironmentParams,
      response: { 200: RLEnvironment, ...errorResponses },
    },
  }, async (request) => {
    const environment = app.catalog.environment(request.params.environment);
    if (!environment) throw notFound(`environment ${request.params.environment}`);
    return environment;
  });

  app.get('/rl-environments/:environment/examples/:example/workload', {
    schema: {
      operationId: 'getRLExampleWorkload',
      tags: ['RL'],
      summary: 'The exact workload the example\'s run route would submit under the default name; starts and charges nothing',
      params: ExampleParams,
      response: { 200: z.object({ workload: WorkloadPayload }), ...errorResponses },
    },
  }, async (request) => {
    const { environment, example } = findExample(app, request.params.environment, request.params.example);
    return { workload: exampleWorkload(environment, example) };
  });

  app.post('/rl-environments/:environment/examples/:example/runs', {
    schema: {
      operationId: 'runRLExample',
      tags: ['RL'],
      summary: 'Run a catalog example as an ordinary workload (Idempotency-Key required; a retry with the same environment, example and name replays)',
      params: ExampleParams,
      body: z.strictObject({ name: z.string().max(120).optional().describe('default: the environment\'s and the example\'s names') }),
      // The contract's body is optional; server/app.ts documents it so.
      [OPTIONAL_BODY]: true,
      response: { 202: SubmitResult, ...errorResponses },
    },
    preValidation: async (request) => {
      requireIdempotencyKey(request);
      // No body at all is the same request as `{}`.
      request.body ??= {};
    },
  }, async (request, reply) => {
    const { environment, example } = request.params;
    const { name } = request.body;
    return answerIdempotently(reply, app.services.launches.runExample(request.tenant.id, requireIdempotencyKey(request), environment, example, name));
  });
}) satisfies FastifyPluginAsyncZod;
