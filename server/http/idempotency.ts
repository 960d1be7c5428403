import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.js';
import type { IdempotentAnswer } from '../domain/launches/idempotency.js';
import { IdempotencyKey } from '../../openapi/headers.js';
import { sendEncodedJson } from './encoded.js';
import { syncHook } from './sync-hook.js';

export const REPLAY_HEADER = 'idempotent-replayed';

/**
 * The key of a keyed creation, checked with the schema the route's `headers` declares, but before
 * the body: a missing or malformed key is reported as such, whatever the body holds.
 */
export function requireIdempotencyKey(request: FastifyRequest): string {
  const key = request.headers['idempotency-key'];
  if (key === undefined || key === '') {
    throw new ApiError(400, 'idempotency_key_required', 'this request needs an Idempotency-Key header: one stable key per intended run, reused on every retry of it');
  }
  if (!IdempotencyKey.safeParse(key).success) {
    throw new ApiError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1–256 printable ASCII characters without spaces');
  }
  return key as string;
}

/** A route's preValidation hook: the key is checked before the body, so a missing key is reported as such. */
export const keyBeforeBody = syncHook((request) => {
  requireIdempotencyKey(request);
});

/**
 * Answers a keyed creation: the key from its header, the stored answer replayed (and marked) or
 * the new one, sent as the JSON text that was stored (launches/idempotency.ts).
 */
export async function answerIdempotently(reply: FastifyReply, answer: Promise<IdempotentAnswer>): Promise<FastifyReply> {
  const { replayed, status, body } = await answer;
  if (replayed) reply.header(REPLAY_HEADER, 'true');
  return sendEncodedJson(reply, status, body);
}
