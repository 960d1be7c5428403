import { z } from 'zod';
import { jsonObject } from './primitives.js';
import { built, lazy } from './lazy.js';

/** The /_mock view of webhook deliveries (docs/webhooks.md). Times are virtual unless named wall. */

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;

export const WebhookAttempt = lazy(() => z
  .object({
    attempt: z.int().describe('1, 2, ... over the delivery, redeliveries included'),
    at: z.string().describe('RFC 3339 virtual time the attempt ended'),
    wall_at: z.string().describe('RFC 3339 wall time it was sent; webhook-timestamp is this in seconds'),
    url: z.string(),
    status_code: z.int().nullable().describe('the receiver\'s status; null when none arrived'),
    error: z.string().nullable().describe('why it did not count as delivered; null when it did'),
    latency_ms: z.number().describe('wall milliseconds until the answer (or the failure)'),
    next_retry_at: z.string().nullable().describe('virtual time of the retry this failure scheduled'),
    fault_id: z.string().nullable().describe('the fault rule that acted on this attempt'),
  })
  .meta({ id: 'MockWebhookAttempt' }));

export const WebhookDelivery = lazy(() => z
  .object({
    id: z.string().describe('the webhook-id header and the body\'s id, the same on every attempt'),
    type: z.string().describe('workload.<status>'),
    workload_id: z.string(),
    created_at: z.string().describe('virtual time of the status change'),
    state: z.enum(DELIVERY_STATES),
    next_attempt_at: z.string().nullable().describe('while pending: virtual time the next attempt is due'),
    last_error: z.string().nullable(),
    payload: built(jsonObject).describe('the body sent, parsed'),
    attempts: z.array(built(WebhookAttempt)),
  })
  .meta({ id: 'MockWebhookDelivery' }));

export const WebhookDeliveryQuery = lazy(() => z.object({
  workload_id: z.string().max(128).optional(),
  state: z.enum(DELIVERY_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('default 100'),
}));

export const WebhookDeliveryList = lazy(() => z
  .object({ deliveries: z.array(built(WebhookDelivery)).describe('oldest first') })
  .meta({ id: 'MockWebhookDeliveryList' }));

export const WebhookDeliveryParams = lazy(() => z.object({ id: z.string().min(1).max(64) }));

export const WebhookFlushResult = lazy(() => z
  .object({
    due: z.int().describe('deliveries still due: 0 unless the flush hit its time limit'),
    pending: z.int().describe('pending deliveries waiting for a retry time (or an earlier delivery of their workload)'),
  })
  .meta({ id: 'MockWebhookFlush' }));
