import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../openapi/common.js';
import { RLRecipeDescriptor } from '../openapi/rl-recipes.js';
import { recipeAvailability } from '../server/admission.js';
import { Catalog } from '../server/catalog.js';

export default (async function rlRecipeRoutes(app) {
  app.get('/v1/rl-recipes', {
    schema: {
      operationId: 'listRLRecipes',
      tags: ['RL'],
      summary: 'The managed RL recipes, with this tenant\'s availability',
      response: { 200: z.strictObject({ recipes: z.array(RLRecipeDescriptor) }), ...errorResponses },
    },
  }, async (request) => ({
    recipes: app.catalog.recipes.map((recipe) => {
      const availability = recipeAvailability(app, request.tenant.id, recipe);
      return Catalog.descriptor(recipe, availability.available, availability.reason);
    }),
  }));
}) satisfies FastifyPluginAsyncZod;
