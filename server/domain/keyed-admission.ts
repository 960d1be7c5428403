import type { IdempotencyRecord } from '../../store/idempotency.js';
import type { DomainContext } from './context.js';
import { conflict } from './errors.js';
import { budgetReady } from './launches/admission.js';
import type { TenantUnit } from './unit.js';
import { submitResult } from './workloads/rows.js';

/** The operations a client makes idempotent with a key; a key is scoped to one of them. */
export const KEYED_OPERATIONS = ['rl_run.launch', 'workload.submit', 'example.run'] as const;
export type KeyedOperation = (typeof KEYED_OPERATIONS)[number];

/** Texts longer than this are hashed every time: each operation's memo stays under FINGERPRINTS_KEPT × this. */
const FINGERPRINT_TEXT_LIMIT = 4096;
const FINGERPRINTS_KEPT = 256;
/**
 * An operation's memo, keyed by the body's text itself: the request's own string, whose hash V8
 * keeps once worked out, so the hook's lookup (knownReplay) and the launch's find it at the cost of one.
 */
const fingerprints = new Map<KeyedOperation, Map<string, string>>(KEYED_OPERATIONS.map((operation) => [operation, new Map()]));

/**
 * A keyed request's fingerprint, remembered by its operation and the body's text as sent: equal
 * texts parse to equal bodies, retries of one key send the same bytes, and the canonical JSON and
 * SHA-256 were a twentieth of a replayed launch (bench/, replay profile). A fingerprint is a pure
 * function of what the memo is keyed by, so one memo serves every app of the process. Bounded;
 * emptied when full. `text` is null when the caller has no body text (a test, the Node API).
 */
export function fingerprintOf(operation: KeyedOperation, text: string | null | undefined, fingerprint: () => string): string {
  if (text == null || text.length > FINGERPRINT_TEXT_LIMIT) return fingerprint();
  const memo = fingerprints.get(operation)!;
  let known = memo.get(text);
  if (known === undefined) {
    known = fingerprint();
    if (memo.size === FINGERPRINTS_KEPT) memo.clear();
    memo.set(text, known);
  }
  return known;
}

interface IdempotentRequest {
  operation: KeyedOperation;
  /** SHA-256 of what makes two requests "the same" for this operation. */
  fingerprint: string;
  /** Checks and creates; runs inside the unit of work, only when the key is new or expired. Answers the workload admitted. */
  admit: (unit: TenantUnit) => string;
}

/** The admitted workload, and whether this answer is an earlier request's, replayed. */
export interface IdempotentAnswer {
  replayed: boolean;
  submitted: ReturnType<typeof submitResult>;
}

/** What a key's record answers a request of this fingerprint at `nowMs`: its earlier answer, a conflict, or nothing (no record, or an expired one). */
function recordAnswer(existing: IdempotencyRecord | null | undefined, fingerprint: string, nowMs: number): IdempotentAnswer | 'conflict' | undefined {
  if (!existing || existing.expiresAtMs <= nowMs) return undefined;
  return existing.fingerprint === fingerprint ? { replayed: true, submitted: submitResult(existing.workloadId) } : 'conflict';
}

/**
 * The earlier answer to a retry that memory alone shows to be one: the same bytes as a request that
 * passed its route's checks in this process (only their fingerprint is remembered, fingerprintOf)
 * under a key whose unexpired record holds that fingerprint. Such a retry is answered before the
 * route checks the body again: the checks are pure, and the same bytes passed them. Anything
 * else, a conflict included, is undefined here and takes the whole path.
 */
export function knownReplay(deps: Pick<DomainContext, 'committed' | 'clock'>, tenantId: string, operation: KeyedOperation, key: string, text: string | null): IdempotentAnswer | undefined {
  const fingerprint = text === null ? undefined : fingerprints.get(operation)!.get(text);
  if (fingerprint === undefined) return undefined;
  const known = deps.committed.idempotency.cached(tenantId, operation, key);
  const answer = known ? recordAnswer(known, fingerprint, deps.clock.nowMs(tenantId)) : undefined;
  return answer === 'conflict' ? undefined : answer;
}

/**
 * A keyed admission (a launch, a submit, an example run) admits once per key. Lookup, admission and the record are one synchronous SQLite transaction (a
 * savepoint of the turn's group commit), so concurrent duplicates are serialised by construction:
 * the second one finds the first's record and replays it, never creating a second resource and
 * never answering a conflict. Only successful admissions are recorded: a refused request leaves
 * the key free for a corrected retry. The promise settles after the commit.
 */
export async function admitOnce(deps: Pick<DomainContext, 'committed' | 'clock' | 'units' | 'config'>, tenantId: string, key: string, req: IdempotentRequest): Promise<IdempotentAnswer> {
  const { committed, clock, units } = deps;
  const ttlMs = deps.config.idempotencyTtl * 1000;
  /** The earlier answer to replay, or undefined when the key is new or expired; a conflict is refused. */
  const replayOf = (existing: IdempotencyRecord | null | undefined, nowMs: number): IdempotentAnswer | undefined => {
    const answer = recordAnswer(existing, req.fingerprint, nowMs);
    if (answer !== 'conflict') return answer;
    throw conflict(
      'idempotency_conflict',
      `Idempotency-Key "${key}" was already used with a different request. Retry the original request unchanged to get its result, or use a new key for a new run.`,
    );
  };
  // A retry whose record memory holds needs no statement at all. Anything else (a new key, or a
  // record not read since the server started) takes the write transaction, which looks for
  // itself: a duplicate queued in the same group finds the record. Looking in the file first
  // would cost every new key a read transaction of its own (the launch profile).
  const known = committed.idempotency.cached(tenantId, req.operation, key);
  const early = known === undefined ? undefined : replayOf(known, clock.nowMs(tenantId));
  if (early) return early;
  await budgetReady(deps, tenantId);
  const answer = await units.atNowTogether(tenantId, (unit): IdempotentAnswer => {
    const replay = replayOf(unit.tables.idempotency.find(tenantId, req.operation, key), unit.nowMs);
    if (replay) return replay;
    const workloadId = req.admit(unit);
    // INSERT OR REPLACE: an expired record under the key is replaced.
    unit.tables.idempotency.save(tenantId, req.operation, key, {
      fingerprint: req.fingerprint,
      workloadId,
      createdAtMs: unit.nowMs,
      expiresAtMs: unit.nowMs + ttlMs,
    });
    return { replayed: false, submitted: submitResult(workloadId) };
  });
  // A record an earlier unit of the same group commit wrote could not be kept when this one read
  // it; committed now, one read keeps it for the retries after this one (a memory hit otherwise).
  if (answer.replayed) committed.idempotency.find(tenantId, req.operation, key);
  return answer;
}
