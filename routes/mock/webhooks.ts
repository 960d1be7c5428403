import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import { WebhookDelivery, WebhookDeliveryList, WebhookDeliveryParams, WebhookDeliveryQuery, WebhookFlushResult } from '../../openapi/mock-webhooks.js';
import { deliveryView } from '../../server/http/views/webhook-delivery.js';

/** What the webhook worker did and will do for this tenant (docs/webhooks.md). */
export default (async function mockWebhookRoutes(app) {
  const { webhooks } = app.services;

  app.get('/webhooks/deliveries', {
    schema: {
      operationId: 'listMockWebhookDeliveries',
      tags: ['mock'],
      summary: 'This tenant\'s webhook deliveries, oldest first, each with every attempt (status, error, latency, next retry)',
      querystring: WebhookDeliveryQuery,
      response: { 200: WebhookDeliveryList },
    },
  }, async (request) => {
    const { workload_id: workloadId, state, limit = 100 } = request.query;
    return { deliveries: webhooks.deliveries(request.tenant.id, { workloadId, state, limit }).map(deliveryView) };
  });

  app.post('/webhooks/deliveries/:id/redeliver', {
    schema: {
      operationId: 'redeliverMockWebhookDelivery',
      tags: ['mock'],
      summary: 'Send one delivery again, now, with the same webhook-id and a fresh retry schedule',
      params: WebhookDeliveryParams,
      response: { 200: WebhookDelivery, ...errorResponses(409) },
    },
  }, async (request) => deliveryView(webhooks.redeliver(request.tenant.id, request.params.id)));

  app.post('/webhooks/flush', {
    schema: {
      operationId: 'flushMockWebhooks',
      tags: ['mock'],
      summary: 'Wait until none of this tenant\'s deliveries is due: every due one attempted and recorded',
      response: { 200: WebhookFlushResult },
    },
  }, async (request) => webhooks.flush(request.tenant.id));
}) satisfies FastifyPluginAsyncZod;
