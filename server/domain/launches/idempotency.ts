import { conflict } from '../errors.js';
import type { DomainContext } from '../context.js';

export interface Admitted {
  status: number;
  body: object;
  workloadId?: string;
}

interface IdempotentRequest {
  /** The operation the key is scoped to, e.g. `POST /v1/rl-runs`. */
  scope: string;
  /** SHA-256 of what makes two requests "the same" for this operation. */
  fingerprint: string;
  /** Checks and creates; runs inside the transaction, only when the key is new or expired. */
  admit: (nowMs: number) => Admitted;
}

/** The JSON text to answer with, and whether it is the stored answer of an earlier request. */
export interface IdempotentAnswer {
  replayed: boolean;
  status: number;
  body: string;
}

/**
 * A key admits once. Lookup, admission and the stored answer are one synchronous SQLite
 * transaction (a savepoint of the turn's group commit), so concurrent duplicates are serialised
 * by construction: the second one finds the first's record and replays it, never creating a
 * second resource and never answering 409. Only successful admissions are stored: a refused
 * request leaves the key free for a corrected retry. The promise settles after the commit.
 */
export async function admitOnce(deps: DomainContext, tenantId: string, key: string, req: IdempotentRequest): Promise<IdempotentAnswer> {
  const { store, clock } = deps;
  const ttlMs = deps.config.idempotencyTtl * 1000;
  /** The stored answer to replay, a conflict, or undefined when the key is new or expired. */
  const stored = (nowMs: number) => {
    const existing = store.idempotency.find(tenantId, req.scope, key);
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
  return stored(clock.nowMs(tenantId)) ?? await store.writeTogether((): IdempotentAnswer => {
    const nowMs = clock.nowMs(tenantId);
    const replay = stored(nowMs);
    if (replay) return replay;
    const admitted = req.admit(nowMs);
    const body = JSON.stringify(admitted.body);
    // INSERT OR REPLACE: an expired record under the key is replaced.
    store.idempotency.save(tenantId, req.scope, key, {
      fingerprint: req.fingerprint,
      status: admitted.status,
      body,
      workloadId: admitted.workloadId ?? null,
      createdAtMs: nowMs,
      expiresAtMs: nowMs + ttlMs,
    });
    return { replayed: false, status: admitted.status, body };
  });
}
