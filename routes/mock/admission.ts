import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { BudgetUpdate, RecipeOverrideUpdate } from '../../openapi/mock.js';
import { RLRecipeDescriptor } from '../../openapi/rl-recipes.js';
import { recipeAvailability } from '../../server/domain/launches/admission.js';
import { Catalog } from '../../server/domain/catalog/index.js';
import { notFound } from '../../server/domain/errors.js';

const RecipeId = z.object({ id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/) });

/** The admission levers: a tenant's view of recipe availability and its monthly budget. */
export default (async function mockAdmissionRoutes(app) {
  app.patch('/recipes/:id', {
    schema: {
      tags: ['mock'],
      summary: "Set this tenant's view of a recipe's availability: preview blocks, launch answers 503 rl_unavailable",
      params: RecipeId,
      body: RecipeOverrideUpdate,
      response: { 200: RLRecipeDescriptor, ...errorResponses },
    },
  }, async (request) => {
    const recipe = app.catalog.recipe(request.params.id);
    if (!recipe) throw notFound(`recipe ${request.params.id}`);
    const { available, unavailable_reason: reason } = request.body;
    app.store.admission.setOverride(request.tenant.id, recipe.id, { available, unavailableReason: reason ?? null });
    const availability = recipeAvailability(app, request.tenant.id, recipe);
    return Catalog.descriptor(recipe, availability.available, availability.reason);
  });

  const BudgetView = z.object({
    monthly_spend_cap_usd: z.number(),
    month_to_date_usd: z.number(),
  }).meta({ id: 'MockBudgetView' });

  app.put('/budget', {
    schema: {
      tags: ['mock'],
      summary: 'Set a monthly cap: admission answers 402 budget_exceeded when an estimate does not fit the headroom',
      body: BudgetUpdate,
      response: { 200: BudgetView, ...errorResponses },
    },
  }, async (request) => {
    const budget = { monthlySpendCapUsd: request.body.monthly_spend_cap_usd, monthToDateUsd: request.body.month_to_date_usd ?? 0 };
    app.store.admission.setBudget(request.tenant.id, budget);
    return { monthly_spend_cap_usd: budget.monthlySpendCapUsd, month_to_date_usd: budget.monthToDateUsd };
  });

  app.delete('/budget', {
    schema: { tags: ['mock'], summary: 'Remove the cap', response: { 204: z.null(), ...errorResponses } },
  }, async (request, reply) => {
    app.store.admission.deleteBudget(request.tenant.id);
    return reply.code(204).send(null);
  });
}) satisfies FastifyPluginAsyncZod;
