import { z } from 'zod';
import { lazy } from './lazy.js';

/** The contract's error envelope; extra fields may follow `error` and `message`. */
export const ErrorBody = lazy(() => z
  .looseObject({
    error: z.string().describe('stable machine-readable code'),
    message: z.string().describe('human-readable explanation'),
  })
  .meta({ id: 'Error' }));

/**
 * What each error status means wherever a route documents it. The document generator
 * (server/http/openapi-document.ts) gives every envelope response its line from here, so that a
 * 409 reads the same on every operation that can answer one.
 */
export const ERROR_DESCRIPTIONS = {
  400: 'The request is invalid: a path, query, header or body field fails its schema or the operation\'s rules; `error` names which (invalid_request, invalid_json, ...)',
  401: 'No API key, or a malformed Authorization header (unauthorized)',
  402: 'The estimated cost does not fit the monthly headroom set with PUT /_mock/budget (budget_exceeded)',
  403: 'scope=mine needs a member credential, and this key is a team key (attribution_required)',
  404: 'Nothing by that id or name exists for this tenant (not_found)',
  409: 'The request conflicts with the state of what it names, or reuses an Idempotency-Key for another request; `error` names which',
  413: 'The body is larger than the server accepts (payload_too_large)',
  414: 'The URL is longer than the server accepts (uri_too_long)',
  415: 'The body\'s Content-Type is not one this operation reads (unsupported_media_type)',
  429: 'This tenant\'s uploads in progress hold its share of the server\'s upload memory (too_many_uploads); Retry-After says when to retry',
  500: 'The answer could not be produced: internal (the mock\'s own fault; the message carries the request id) or the operation\'s own code',
  502: 'Storage or the source behind the operation failed; the mock answers it only when a fault rule injects it',
  503: 'The service cannot take this now: a paused recipe (rl_unavailable) an unreachable database (not_ready), or uploads in progress holding the server\'s upload memory (uploads_busy, with Retry-After)',
  default: 'Any other error: on /v1, whatever status a fault rule (POST /_mock/faults) injects; 403 host_not_allowed for a Host header that is not one of the mock\'s names; 414 for an over-long URL; 500 internal',
} as const;

/** Statuses a route answers by its own rules; 401, 413 and 415 only ever come from what it takes. */
type ErrorStatus = Exclude<keyof typeof ERROR_DESCRIPTIONS, 'default' | 401 | 413 | 415>;

/**
 * The error responses a route answers by its own rules (a 409 for a conflict, a 402, a 404 for
 * what its body names). What it answers because of what it takes (401, 400 for its schemas, 404
 * for its path's id, 413 and 415 for a JSON body) and `default` are added to every keyed route by
 * server/http/error-responses.ts. Every one is the envelope.
 */
export function errorResponses<const S extends ErrorStatus>(...statuses: S[]): Record<S, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBody])) as Record<S, typeof ErrorBody>;
}

/** Raw bytes, in a request or an answer: documented as a binary string, never validated or serialised. */
export const BinaryBody = lazy(() => z.any().meta({ type: 'string', format: 'binary' }));
