import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BudgetUpdate, LeversUpdate, RecipeOverrideUpdate } from '../../openapi/mock.js';
import { RecipeParams } from '../../openapi/params.js';
import { RLRecipeDescriptor } from '../../openapi/rl-recipes.js';
import { lazy } from '../../openapi/lazy.js';

/** The admission levers: a tenant's view of recipe availability and its monthly budget. */
export default (async function mockAdmissionRoutes(app) {
  const { control } = app.services;

  app.patch('/recipes/:id', {
    schema: {
      operationId: 'overrideMockRecipe',
      tags: ['mock'],
      summary: "Set this tenant's view of a recipe's availability: preview blocks, launch answers 503 rl_unavailable",
      params: RecipeParams,
      body: RecipeOverrideUpdate,
      response: { 200: RLRecipeDescriptor },
    },
  }, async (request) => control.overrideRecipe(request.tenant.id, request.params.id, request.body));

  // Here rather than in openapi/mock.ts, as LeversView below: declared as the routes register, the
  // two are the document's last components, and moving them would reorder openapi/openapi.json.
  const BudgetView = lazy(() => z.object({
    monthly_spend_cap_usd: z.number(),
    month_to_date_usd: z.number(),
  }).meta({ id: 'MockBudgetView' }));

  app.put('/budget', {
    schema: {
      operationId: 'setMockBudget',
      tags: ['mock'],
      summary: 'Set a monthly cap: admission answers 402 budget_exceeded when an estimate does not fit the headroom',
      body: BudgetUpdate,
      response: { 200: BudgetView },
    },
  }, async (request) => {
    const budget = control.setBudget(request.tenant.id, request.body);
    return { monthly_spend_cap_usd: budget.monthlySpendCapUsd, month_to_date_usd: budget.monthToDateUsd };
  });

  const LeversView = lazy(() => z.object({
    review_expiry: z.boolean(),
    unrecoverable_error_rate: z.number().nullable(),
  }).meta({ id: 'MockLeversView' }));

  app.put('/levers', {
    schema: {
      operationId: 'setMockLevers',
      tags: ['mock'],
      summary: "Review expiry (a launch after valid_until answers 409 review_changed) and unrecoverable held-out errors of new launches; names only the levers to change",
      body: LeversUpdate,
      response: { 200: LeversView },
    },
  }, async (request) => control.setLevers(request.tenant.id, request.body));

  app.delete('/budget', {
    schema: { operationId: 'deleteMockBudget', tags: ['mock'], summary: 'Remove the cap', response: { 204: lazy(() => z.null()) } },
  }, async (request, reply) => {
    control.removeBudget(request.tenant.id);
    return reply.code(204).send(null);
  });
}) satisfies FastifyPluginAsyncZod;
