import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, conflict } from '../domain/errors.js';
import { syncHook } from './sync-hook.js';

/** The contract's bounds (1–256) and the SDK's own rule: printable ASCII, no spaces. */
const KEY_PATTERN = /^[\x21-\x7e]{1,256}$/;

export const REPLAY_HEADER = 'idempotent-replayed';

export function requireIdempotencyKey(request: FastifyRequest): string {
  const key = request.headers['idempotency-key'];
  if (key === undefined || key === '') {
    throw new ApiError(400, 'idempotency_key_required', 'this request needs an Idempotency-Key header: one stable key per intended run, reused on every retry of it');
  }
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw new ApiError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1–256 printable ASCII characters without spaces');
  }
  return key;
}

/** A route's preValidation hook: the key is checked before the body, so a missing key is reported as such. */
export const keyBeforeBody = syncHook((request) => {
  requireIdempotencyKey(request);
});

export interface Admitted {
  status: number;
  body: object;
  workloadId?: string;
}

export interface IdempotentRequest {
  /** The operation the key is scoped to, e.g. `POST /v1/rl-runs`. */
  scope: string;
  /** SHA-256 of what makes two requests "the same" for this operation. */
  fingerprint: string;
  /** Checks and creates; runs inside the transaction, only when the key is new or expired. */
  admit: (nowMs: number) => Admitted;
}

/**
 * Design decision 7. Lookup, admission and the stored answer are one synchronous SQLite
 * transaction (a savepoint of the turn's group commit), so concurrent duplicates are serialised
 * by construction: the second one finds the first's record and replays it, never creating a
 * second resource and never answering 409. Only successful admissions are stored: a refused
 * request leaves the key free for a corrected retry. The answer leaves after the commit.
 */
export async function answerIdempotently(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, req: IdempotentRequest): Promise<FastifyReply> {
  const key = requireIdempotencyKey(request);
  const tenantId = request.tenant.id;
  const ttlMs = app.config.idempotencyTtl * 1000;
  /** The stored answer to replay, a conflict, or undefined when the key is new or expired. */
  const stored = (nowMs: number) => {
    const existing = app.store.idempotency.find(tenantId, req.scope, key);
    if (!existing || existing.expiresAtMs <= nowMs) return undefined;
    if (existing.fingerprint !== req.fingerprint) {
      throw conflict(
        'idempotency_conflict',
        `Idempotency-Key "${key}" was already used with a different request. Retry the original request unchanged to get its result, or use a new key for a new run.`,
      );
    }
    return { replayed: true, status: existing.status, body: existing.body };
  };
  // A retry needs no write: outside any transaction a record is a committed one, so a plain read
  // answers it, and only a new or expired key takes the write transaction (and its lock and
  // commit), which looks again for itself: a duplicate queued in the same group finds the record.
  const answer = stored(app.clock.nowMs(tenantId)) ?? await app.store.writeTogether(() => {
    const nowMs = app.clock.nowMs(tenantId);
    const replay = stored(nowMs);
    if (replay) return replay;
    const admitted = req.admit(nowMs);
    const body = JSON.stringify(admitted.body);
    app.store.idempotency.save(tenantId, req.scope, key, {
      fingerprint: req.fingerprint,
      status: admitted.status,
      body,
      workloadId: admitted.workloadId ?? null,
      createdAtMs: nowMs,
      expiresAtMs: nowMs + ttlMs,
    });
    return { replayed: false, status: admitted.status, body };
  });
  if (answer.replayed) reply.header(REPLAY_HEADER, 'true');
  return reply.code(answer.status).type('application/json; charset=utf-8').send(answer.body);
}
