import type { FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import { ApiError } from './api-error.js';
import type { IdempotentAnswer } from '../domain/keyed-admission.js';
import { IdempotencyKey } from '../../openapi/headers.js';
import { built } from '../../openapi/lazy.js';
import { objectJson, sendEncodedJson } from './encoded.js';
import { SubmitResult } from '../../openapi/workload-payload.js';

const REPLAY_HEADER = 'idempotent-replayed';

/** The answer is an earlier request's: the client reads the header, the journal the flag. */
export function markReplayed(reply: FastifyReply): void {
  reply.request.replayed = true;
  reply.header(REPLAY_HEADER, 'true');
}

/** The schema itself, taken once: its stand-in (openapi/lazy.ts) would be asked on every launch. */
let keySchema: typeof IdempotencyKey | undefined;

/**
 * The key of a keyed creation, checked with the schema the route's `headers` declares, but before
 * the body: a missing or malformed key is reported as such, whatever the body holds.
 */
export function requireIdempotencyKey(request: FastifyRequest): string {
  const key = request.headers['idempotency-key'];
  if (key === undefined || key === '') {
    throw new ApiError(400, 'idempotency_key_required', 'this request needs an Idempotency-Key header: one stable key per intended run, reused on every retry of it');
  }
  if (!(keySchema ??= built(IdempotencyKey)).safeParse(key).success) {
    throw new ApiError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1–256 printable ASCII characters without spaces');
  }
  return key as string;
}

/** The earlier answer to a request, when memory alone shows it to be a retry (domain/keyed-admission.ts, knownReplay). */
type KnownReplay = (tenantId: string, key: string, text: string | null) => IdempotentAnswer | undefined;

/**
 * A keyed route's preValidation hook: the key is checked before the body, so a missing key is
 * reported as such; a retry that memory shows to be one is answered here, before the body's
 * checks, which the same bytes passed the first time, and without the handler's promises.
 */
export const keyBeforeBody = (knownReplay: KnownReplay): preValidationHookHandler => (request, reply, done) => {
  const replay = knownReplay(request.tenant.id, requireIdempotencyKey(request), request.rawBody);
  if (replay === undefined) return done();
  send(reply, replay);
};

type Submitted = IdempotentAnswer['submitted'];
const submittedJson = objectJson<typeof SubmitResult, Submitted>(SubmitResult, {
  id: (s) => JSON.stringify(s.id),
  workload_id: (s) => JSON.stringify(s.workload_id),
  status: (s) => JSON.stringify(s.status),
  revision: (s) => String(s.revision),
});

/**
 * A keyed admission's 202 Accepted: the earlier answer replayed (and marked) or the new one.
 * Encoded here rather than by the route's serializer, and by a writer rather than JSON.stringify:
 * the result is four plain fields, and a replay's whole answer path showed in its profile.
 */
function send(reply: FastifyReply, { replayed, submitted }: IdempotentAnswer): FastifyReply {
  if (replayed) markReplayed(reply);
  return sendEncodedJson(reply, 202, submittedJson(submitted));
}

/** Answers a keyed admission once it settles. */
export const answerIdempotently = async (reply: FastifyReply, answer: Promise<IdempotentAnswer>): Promise<FastifyReply> => send(reply, await answer);
