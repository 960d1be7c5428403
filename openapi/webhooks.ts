import { z } from 'zod';
import { lazy } from './lazy.js';

/**
 * The team webhook. The real service's document leaves every object open and
 * marks only the request's url as required; the mock always answers every field.
 */

/** `whsec_` and canonical base64 (padded), the Standard Webhooks spelling of a signing secret. */
const WEBHOOK_SECRET_PATTERN = /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const WEBHOOK_SECRET_BYTES = { min: 24, max: 64 } as const;

const secretBytes = (secret: string) => Buffer.from(secret.slice('whsec_'.length), 'base64').length;

export const WebhookRequest = lazy(() => z
  .looseObject({
    url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048),
    secret: z
      .string()
      .regex(WEBHOOK_SECRET_PATTERN, 'must be whsec_ followed by base64 (Standard Webhooks)')
      .refine((s) => secretBytes(s) >= WEBHOOK_SECRET_BYTES.min && secretBytes(s) <= WEBHOOK_SECRET_BYTES.max,
        `must hold ${WEBHOOK_SECRET_BYTES.min} to ${WEBHOOK_SECRET_BYTES.max} bytes after whsec_`)
      .optional()
      .describe('signing secret; generated when omitted'),
  })
  .meta({ id: 'WebhookRequest' }));

export const Webhook = lazy(() => z
  .looseObject({
    url: z.string().optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'Webhook' }));

export const WebhookCreated = lazy(() => z
  .looseObject({
    url: z.string().optional(),
    secret: z.string().optional(),
    enabled: z.boolean().optional(),
  })
  .meta({ id: 'WebhookCreated' }));

export const WebhookDeleted = lazy(() => z
  .looseObject({
    status: z.string().optional(),
  })
  .meta({ id: 'WebhookDeleted' }));
