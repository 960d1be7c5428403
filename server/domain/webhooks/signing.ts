import { createHmac, randomBytes } from 'node:crypto';

/**
 * The Standard Webhooks scheme (a mock choice: the real service does not describe its deliveries,
 * and an open scheme lets receivers verify with any Standard Webhooks library): the secret is
 * `whsec_` and base64 key bytes; a delivery is signed as HMAC-SHA256 over
 * `{webhook-id}.{webhook-timestamp}.{body}` and sent as `v1,<base64>`.
 */

const PREFIX = 'whsec_';

/** 32 random bytes, the size Standard Webhooks libraries generate. */
export const newWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The three headers of one attempt. */
export function signedHeaders(secret: string, id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signature(secret, id, timestampSeconds, body),
  };
}
