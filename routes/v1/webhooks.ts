import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import { Webhook, WebhookCreated, WebhookDeleted, WebhookRequest } from '../../openapi/webhooks.js';

/** The team's one webhook (the real service keeps one per team); deliveries: docs/webhooks.md. */
export default (async function webhookRoutes(app) {
  const { webhooks } = app.services;

  app.put('/webhooks', {
    schema: {
      operationId: 'putWebhook',
      tags: ['Webhooks'],
      summary: 'Create or replace the team webhook; an omitted secret is generated (the same URL again changes nothing)',
      body: WebhookRequest,
      response: { 200: WebhookCreated },
    },
    config: { journalRedact: ['secret'] },
  }, async (request) => webhooks.put(request.tenant.id, request.body));

  app.get('/webhooks', {
    schema: {
      operationId: 'getWebhook',
      tags: ['Webhooks'],
      summary: 'The team webhook; the secret is never returned here',
      response: { 200: Webhook, ...errorResponses(404) },
    },
  }, async (request) => webhooks.get(request.tenant.id));

  app.delete('/webhooks', {
    schema: {
      operationId: 'deleteWebhook',
      tags: ['Webhooks'],
      summary: 'Remove the team webhook (also when none is set); pending deliveries are not sent',
      response: { 200: WebhookDeleted },
    },
  }, async (request) => {
    webhooks.delete(request.tenant.id);
    return { status: 'deleted' };
  });
}) satisfies FastifyPluginAsyncZod;
