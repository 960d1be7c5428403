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

/** Per store, the admissions of new keys still waiting for their commit, by tenant, scope and key. */
const admitting = new WeakMap<DomainContext['store'], Map<string, Promise<unknown>>>();

/**
 * Design decision 7. Lookup, admission and the stored answer are one synchronous SQLite
 * transaction (a savepoint of the turn's group commit), so concurrent duplicates are serialised
 * by construction: the second one finds the first's record and replays it, never creating a
 * second resource and never answering 409. Only successful admissions are stored: a refused
 * request leaves the key free for a corrected retry. The promise settles after the commit.
 */
export async function admitOnce(deps: DomainContext, tenantId: string, key: string, req: IdempotentRequest): Promise<IdempotentAnswer> {
  const { store, clock } = deps;
  const ttlMs = deps.config.idempotencyTtl * 1000;
  // A retry needs no write: outside any transaction a record is a committed one, so a plain read
  // answers it, and only a new or expired key takes the write transaction (and its lock and commit).
  const existing = store.idempotency.find(tenantId, req.scope, key);
  if (existing && existing.expiresAtMs > clock.nowMs(tenantId)) {
    if (existing.fingerprint !== req.fingerprint) {
      throw conflict(
        'idempotency_conflict',
        `Idempotency-Key "${key}" was already used with a different request. Retry the original request unchanged to get its result, or use a new key for a new run.`,
      );
    }
    return { replayed: true, status: existing.status, body: existing.body };
  }
  // Only an admission through here stores a record, so the one that can appear between this read
  // and the commit is a duplicate's still in flight. It is awaited and this request starts over,
  // to replay its committed answer (or, if it was refused, to be admitted itself): the transaction
  // needs no second read of the key, which was a statement on every fresh launch (bench/).
  let inFlight = admitting.get(store);
  if (!inFlight) admitting.set(store, (inFlight = new Map()));
  const id = `${tenantId}\n${req.scope}\n${key}`;
  const earlier = inFlight.get(id);
  if (earlier) {
    await earlier.catch(() => undefined);
    return admitOnce(deps, tenantId, key, req);
  }
  const admission = store.writeTogether((): IdempotentAnswer => {
    const nowMs = clock.nowMs(tenantId);
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
  inFlight.set(id, admission);
  try {
    return await admission;
  } finally {
    inFlight.delete(id);
  }
}
