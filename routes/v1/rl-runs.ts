import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import { RLRecipeRequest, RLRunPreview, RLRunRequest } from '../../openapi/rl-recipes.js';
import { KeyedHeaders, PreviewHeaders, ReplayedHeaders } from '../../openapi/headers.js';
import { SubmitResult } from '../../openapi/workload-payload.js';
import { answerIdempotently, keyBeforeBody } from '../../server/http/idempotency.js';
import { RESPONSE_HEADERS } from '../../server/http/openapi-document.js';

export default (async function rlRunRoutes(app) {
  const { launches } = app.services;

  app.post('/rl-runs/preview', {
    schema: {
      operationId: 'previewRLRun',
      tags: ['RL'],
      summary: 'Normalise and review a run: phases, outputs, estimate and the review token to launch it with',
      body: RLRecipeRequest,
      response: { 200: RLRunPreview },
      [RESPONSE_HEADERS]: { 200: PreviewHeaders },
    },
  }, async (request, reply) => {
    const preview = await launches.preview(request.tenant.id, request.body);
    // The preview's ETag (PreviewHeaders) is its review token: it names exactly what was reviewed.
    if (preview.review_token) reply.header('etag', `"${preview.review_token}"`);
    return preview;
  });

  app.post('/rl-runs', {
    schema: {
      operationId: 'createRLRun',
      tags: ['RL'],
      summary: 'Launch a reviewed run (Idempotency-Key required; a same-key retry replays)',
      headers: KeyedHeaders,
      body: RLRunRequest,
      response: { 202: SubmitResult, ...errorResponses(402, 409, 503) },
      [RESPONSE_HEADERS]: { 202: ReplayedHeaders },
    },
    preValidation: keyBeforeBody(launches.knownLaunchReplay),
  }, async (request, reply) =>
    answerIdempotently(reply, launches.launch(request.tenant.id, request.headers['idempotency-key'], request.body, request.rawBody)));
}) satisfies FastifyPluginAsyncZod;
