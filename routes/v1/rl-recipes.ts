import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { RLRecipeDescriptor } from '../../openapi/rl-recipes.js';
import { catalogAvailability, type Availability } from '../../server/domain/launches/admission.js';
import { Catalog } from '../../server/domain/catalog/index.js';

const RecipeList = z.strictObject({ recipes: z.array(RLRecipeDescriptor) });

/** Distinct availability states kept serialised; tests patch a few recipes, nobody patches hundreds. */
const CACHED_STATES = 64;

export default (async function rlRecipeRoutes(app) {
  // The list depends only on the catalog, fixed for the app's life, and on the tenant's
  // availability overrides. Encoding it through the response schema on every request was most
  // of this route's cost (bench/, profile of GET /v1/rl-recipes), so each availability state is
  // encoded once, through the same schema the serializer used, and its bytes are reused.
  // Kept as bytes: Fastify measures a string body (Buffer.byteLength) and Node encodes it again
  // on every write, where a Buffer is sent as it is.
  const encoded = new Map<string, Buffer>();
  // The tenant cache hands out one overrides object until they change, so the body it gave last
  // time answers without working out the availability again.
  const lastFor = new WeakMap<object, Buffer>();

  app.get('/rl-recipes', {
    schema: {
      operationId: 'listRLRecipes',
      tags: ['RL'],
      summary: 'The managed RL recipes, with this tenant\'s availability',
      response: { 200: RecipeList, ...errorResponses },
    },
  // Not async: nothing here awaits, and a promise per request (with Fastify's then() on it) is
  // work the answer does not need; Fastify sends what a synchronous handler throws as usual.
  }, (request, reply) => {
    const overrides = app.store.admission.overrides(request.tenant.id);
    let body = lastFor.get(overrides);
    if (body === undefined) {
      body = encodedList(catalogAvailability(app, request.tenant.id));
      lastFor.set(overrides, body);
    }
    // Already encoded through RecipeList: sent as bytes, which Fastify passes by its serializer.
    (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
  });

  function encodedList(availability: Availability[]): Buffer {
    const state = JSON.stringify(availability);
    let body = encoded.get(state);
    if (body === undefined) {
      const list = {
        recipes: app.catalog.recipes.map((recipe, i) => Catalog.descriptor(recipe, availability[i].available, availability[i].reason)),
      };
      body = Buffer.from(JSON.stringify(z.encode(RecipeList, list)), 'utf8');
      if (encoded.size >= CACHED_STATES) encoded.delete(encoded.keys().next().value!);
      encoded.set(state, body);
    }
    return body;
  }
}) satisfies FastifyPluginAsyncZod;
