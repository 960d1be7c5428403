import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { RLRecipeList } from '../../openapi/rl-recipes.js';
import type { RecipeList } from '../../server/domain/launches/recipes.js';
import { sendEncodedJson } from '../../server/http/encoded.js';

export default (async function rlRecipeRoutes(app) {
  const { launches } = app.services;
  // Encoding the list through the response schema on every request was most of this route's cost
  // (bench/, profile of GET /v1/rl-recipes). The service answers one list object per availability
  // state, so each is encoded once, through the same schema the serializer used, and its bytes
  // are reused (test/contract/rl-recipes-bytes.test.ts checks them against the schema). Kept as bytes:
  // Fastify measures a string body (Buffer.byteLength) and Node encodes it again on every write,
  // where a Buffer is sent as it is.
  const encoded = new WeakMap<RecipeList, Buffer>();

  app.get('/rl-recipes', {
    schema: {
      operationId: 'listRLRecipes',
      tags: ['RL'],
      summary: 'The managed RL recipes, with this tenant\'s availability',
      response: { 200: RLRecipeList },
    },
  // Not async: nothing here awaits, and a promise per request (with Fastify's then() on it) is
  // work the answer does not need; Fastify sends what a synchronous handler throws as usual.
  }, (request, reply) => {
    const list = launches.recipes(request.tenant.id);
    let body = encoded.get(list);
    if (body === undefined) {
      body = Buffer.from(JSON.stringify(z.encode(RLRecipeList, list)), 'utf8');
      encoded.set(list, body);
    }
    sendEncodedJson(reply as FastifyReply, 200, body);
  });
}) satisfies FastifyPluginAsyncZod;
