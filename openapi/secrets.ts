import { z } from 'zod';
import { dateTime } from './primitives.js';
import { built, lazy } from './lazy.js';

/**
 * Secrets (the contract's Secrets tag): write-only values, versioned per name. Their routes refuse
 * with SandboxError (`code`, `message`, `fix`, `url`), not with the `Error` envelope of the rest
 * of /v1.
 */

export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export const SecretWrite = lazy(() => z
  .strictObject({
    name: z.string().regex(SECRET_NAME),
    value: z.string().min(1).max(4096).meta({ writeOnly: true }).describe('Nonempty UTF-8 secret with at most 4096 encoded bytes and no NUL characters.'),
  })
  .meta({ id: 'SecretWrite' }));
export type SecretWrite = z.infer<typeof SecretWrite>;

export const SecretMetadata = lazy(() => z
  .looseObject({
    id: z.string().describe('Stable tenant secret ID shared by its versions.'),
    name: z.string(),
    version: z.int().min(1),
    created_at: built(dateTime),
  })
  .meta({ id: 'SecretMetadata' }));
export type SecretMetadata = z.infer<typeof SecretMetadata>;

export const SecretList = lazy(() => z.object({ secrets: z.array(built(SecretMetadata)).describe('current metadata only, oldest first') }));

/** DELETE /v1/secrets/{name}: any name is looked up (a malformed one names no secret), within a bound. */
export const SecretParams = lazy(() => z.object({ name: z.string().min(1).max(256) }));

export const SandboxError = lazy(() => z
  .looseObject({
    code: z.string().describe('stable machine-readable code'),
    message: z.string().describe('human-readable explanation'),
    fix: z.string().describe('what to change to be accepted'),
    url: z.url().describe('where the operation is documented'),
  })
  .meta({ id: 'SandboxError' }));

/** What each error status of a secrets route means; the same statuses as ERROR_DESCRIPTIONS. */
export const SANDBOX_ERROR_DESCRIPTIONS = {
  400: 'The request is invalid: the body fails its schema, a reserved name, a value over 4096 UTF-8 bytes or with NUL, or the tenant\'s secret limit; `code` names which',
  401: 'No API key, or a malformed Authorization header (unauthorized)',
  404: 'No secret by that name in this tenant (not_found)',
  413: 'The body is larger than the server accepts (payload_too_large)',
  415: 'The body\'s Content-Type is not one this operation reads (unsupported_media_type)',
  default: 'Any other error, as SandboxError: whatever status a fault rule (POST /_mock/faults) injects; 414 for an over-long URL; 500 internal',
} as const;
