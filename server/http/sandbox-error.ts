import type { FastifyRequest } from 'fastify';
import { TOO_DEEP } from '../domain/json-text.js';
import type { ApiError } from './api-error.js';

/** The remedy an error of this status gets when its code names none of its own. */
const FIXES: Record<number, string> = {
  400: 'correct the request as the message says and send it again',
  401: 'send Authorization: Bearer <key> with a key this server accepts',
  404: 'check the name; GET /v1/secrets lists this tenant\'s secrets',
  413: 'send a smaller body: a secret value is at most 4096 UTF-8 bytes',
  415: 'send the body as application/json',
};
const RETRY = 'retry later; the message says what failed';

/**
 * SandboxError, the secrets routes' envelope: the code, the message, what to change (`fix`) and
 * where the operation is documented (this server's API reference). A JSON parser's message can
 * quote the body, and so the value: on these routes it is replaced by one that quotes nothing.
 */
export function sandboxErrorBody(error: ApiError, request: FastifyRequest): Record<string, unknown> {
  const fix = typeof error.extra.fix === 'string' ? error.extra.fix : FIXES[error.status] ?? RETRY;
  // The depth refusal quotes nothing of the body, and names the limit a client needs to know.
  const message = error.code === 'invalid_json' && !error.message.includes(TOO_DEEP)
    ? 'request body is not valid JSON, or repeats a key (the parser\'s detail is left out: it could quote the secret)'
    : error.message;
  return { code: error.code, message, fix, url: referenceUrl(request) };
}

function referenceUrl(request: FastifyRequest): string {
  try {
    return new URL('/docs#/Secrets', `http://${request.host}`).href;
  } catch {
    return 'http://localhost/docs#/Secrets';
  }
}
