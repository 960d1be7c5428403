import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { EnvironmentParams, ExampleParams } from '../../openapi/params.js';
import { RLEnvironment, RLEnvironmentList, RLExampleRunRequest } from '../../openapi/rl-environments.js';
import { SubmitResult, WorkloadPayload } from '../../openapi/workload-payload.js';
import { KeyedHeaders, ReplayedHeaders } from '../../openapi/headers.js';
import { answerIdempotently, requireIdempotencyKey } from '../../server/http/idempotency.js';
import { OPTIONAL_BODY, RESPONSE_HEADERS } from '../../server/http/openapi-document.js';
import { built, lazy } from '../../openapi/lazy.js';

export default (async function rlEnvironmentRoutes(app) {
  const { catalog, launches } = app.services;

  app.get('/rl-environments', {
    schema: {
      operationId: 'listRLEnvironments',
      tags: ['RL'],
      summary: 'The environment catalog: what each environment is and, when runnable, its launch and examples',
      response: { 200: RLEnvironmentList },
    },
  }, async () => {
    const { reviewedAt, environments } = catalog.environments();
    return { schema_version: 1, ...(reviewedAt === undefined ? {} : { reviewed_at: reviewedAt }), environments: [...environments] };
  });

  app.get('/rl-environments/:environment', {
    schema: {
      operationId: 'getRLEnvironment',
      tags: ['RL'],
      summary: 'One catalog environment, the same entry as in the list',
      params: EnvironmentParams,
      response: { 200: RLEnvironment },
    },
  }, async (request) => catalog.environment(request.params.environment));

  app.get('/rl-environments/:environment/examples/:example/workload', {
    schema: {
      operationId: 'getRLExampleWorkload',
      tags: ['RL'],
      summary: 'The exact workload the example\'s run route would submit under the default name; starts and charges nothing',
      params: ExampleParams,
      response: { 200: lazy(() => z.object({ workload: built(WorkloadPayload) })) },
    },
  }, async (request) => ({ workload: launches.exampleWorkload(request.params.environment, request.params.example) }));

  app.post('/rl-environments/:environment/examples/:example/runs', {
    schema: {
      operationId: 'runRLExample',
      tags: ['RL'],
      summary: 'Run a catalog example as an ordinary workload (Idempotency-Key required; a retry with the same environment, example and name replays)',
      params: ExampleParams,
      headers: KeyedHeaders,
      body: RLExampleRunRequest,
      // The contract's body is optional; the OpenAPI document says so (server/http/openapi-document.ts).
      [OPTIONAL_BODY]: true,
      response: { 202: SubmitResult, ...errorResponses(402, 409) },
      [RESPONSE_HEADERS]: { 202: ReplayedHeaders },
    },
    preValidation: async (request) => {
      requireIdempotencyKey(request);
      // No body at all is the same request as `{}`.
      request.body ??= {};
    },
  }, async (request, reply) => {
    const { environment, example } = request.params;
    const { name } = request.body;
    return answerIdempotently(reply, launches.runExample(request.tenant.id, request.headers['idempotency-key'], environment, example, name));
  });
}) satisfies FastifyPluginAsyncZod;
