import { z } from 'zod';
import { keysOf, plain } from './plain.js';
import { dateTime, freeText, identityText, integerConst, sha256Hex, utf8Bytes } from './primitives.js';
import { built, lazy, once } from './lazy.js';

/** RL evidence a workload produces: task events, grading receipts and the phase summary. */

// Made once, with the first of the two events built: they share each field's schema.
const taskEventFields = once(() => ({
  event_id: identityText(128),
  phase: z.enum(['baseline', 'training', 'evaluation']),
  task_id: identityText(128),
  attempt: z.int().min(1).max(1_000_000),
  message: freeText(1024).optional(),
  input: freeText(4096).optional(),
  output: freeText(4096).optional(),
  verifier: freeText(4096).optional(),
}));

// The contract states RLEvent as one closed object plus a oneOf on `kind`. It is written here as a
// discriminated union of two closed objects rather than one object with a superRefine: a
// `task_started` carrying `outcome`, `reward` or `duration_ms` is then refused as an unknown key
// (naming it), a `task_completed` without `outcome` as a missing field, the generated document
// keeps the oneOf, and the inferred type makes `outcome` present exactly on completed events.
const TaskStarted = lazy(() => z.strictObject({ ...taskEventFields(), kind: z.literal('task_started') }));
const TaskCompleted = lazy(() => z.strictObject({
  ...taskEventFields(),
  kind: z.literal('task_completed'),
  outcome: z.enum(['passed', 'failed', 'error']),
  reward: z.number().optional().describe('any finite number; 0 and negative rewards are real values'),
  duration_ms: z.number().min(0).optional(),
}));

/** One task event as a workload prints it (`nodus.rl_event <json>`). */
export const RLEvent = lazy(() => z.discriminatedUnion('kind', [built(TaskStarted), built(TaskCompleted)]).meta({ id: 'RLEvent' }));
export type RLEvent = z.infer<typeof RLEvent>;

/**
 * A stricter RLEvent check for the events the server makes itself (the simulator's): true only
 * when RLEvent.parse would return the event's own fields unchanged, so it may be stored as it is;
 * false decides nothing (parse it then). Compiled from RLEvent itself (openapi/plain.ts): it takes
 * identities only in printable ASCII, no key set to undefined, nothing the schema does not name.
 * Parsing every simulated event through zod was about a tenth of materialising a run (bench/,
 * materialise profile); a property test holds this to RLEvent (test/routes/mock/evidence.test.ts).
 */
const plainRLEvent = once(() => plain(built(RLEvent)));
export const isPlainRLEvent = (e: unknown): e is RLEvent => plainRLEvent()(e);

/** Every key an RLEvent may have (the canonical JSON sorts them once). */
export const rlEventKeys = once((): readonly string[] => keysOf(built(RLEvent)));

/** The runner drops events whose compact JSON encoding is larger than this. */
export const RL_EVENT_MAX_ENCODED_BYTES = 16 * 1024;

/** Size of the event's compact JSON encoding in UTF-8 bytes, to compare with the limit above. */
export const rlEventEncodedBytes = (event: RLEvent): number => utf8Bytes(JSON.stringify(event));

export const RLEventRow = lazy(() => z
  .strictObject({
    id: z.string().regex(/^[0-9]+$/).describe('decimal replay id; neither the page cursor nor event.event_id'),
    stage_id: z.string(),
    generation: z.int(),
    received_at: built(dateTime).describe('when the event was first persisted'),
    event: built(RLEvent),
  })
  .meta({ id: 'RLEventRow' }));
export type RLEventRow = z.infer<typeof RLEventRow>;

export const RLEventPage = lazy(() => z
  .strictObject({
    schema_version: integerConst(1),
    events: z.array(built(RLEventRow)).max(200),
    next_cursor: z.string().max(64).describe('opaque; the request cursor again when there are no new rows'),
    has_more: z.boolean().describe('false only means nothing more in this snapshot'),
    dropped_events: z.int().min(0).meta({ format: 'int64' }),
    truncated: z.boolean(),
  })
  .meta({ id: 'RLEventPage' }));
export type RLEventPage = z.infer<typeof RLEventPage>;

const gradingId = lazy(() => z.string().min(1).max(128));

/** One admitted grading attempt; `reward` only once completed, `infrastructure_code` only on failure. */
export const RLGradingReceipt = lazy(() => z
  .strictObject({
    attempt_id: built(gradingId),
    request_id: built(gradingId),
    task_id: built(gradingId),
    candidate_sha256: built(sha256Hex),
    plan_sha256: built(sha256Hex),
    manifest_sha256: built(sha256Hex),
    state: z.enum(['pending', 'completed', 'infrastructure_failure']),
    reward: z.number().min(0).max(1).optional(),
    cleanup_complete: z.boolean(),
    infrastructure_code: z
      .enum(['execution_lost', 'execution_cancelled', 'execution_failed', 'output_incomplete', 'grading_unavailable'])
      .optional(),
  })
  .superRefine((receipt, ctx) => {
    if (receipt.reward !== undefined && receipt.state !== 'completed') {
      ctx.addIssue({ code: 'custom', path: ['reward'], message: 'only a completed receipt carries a reward' });
    }
    if (receipt.infrastructure_code !== undefined && receipt.state !== 'infrastructure_failure') {
      ctx.addIssue({
        code: 'custom',
        path: ['infrastructure_code'],
        message: 'only an infrastructure_failure receipt carries an infrastructure_code',
      });
    }
  })
  .meta({ id: 'RLGradingReceipt' }));
export type RLGradingReceipt = z.infer<typeof RLGradingReceipt>;

export const RLGradingResults = lazy(() => z
  .strictObject({
    schema_version: integerConst(1),
    workload_id: z.string(),
    revision: z.int().min(1).max(2147483647),
    plan_sha256: built(sha256Hex),
    parent_status: z.string().describe('the workload status read in the same snapshot'),
    grading_cleanup_complete: z.boolean(),
    receipts: z.array(built(RLGradingReceipt)).describe('every admitted attempt, by creation time then attempt id'),
  })
  .meta({ id: 'RLGradingResults' }));
export type RLGradingResults = z.infer<typeof RLGradingResults>;

export const RLPhaseSummary = lazy(() => z
  .looseObject({
    attempts: z.int().describe('finished attempts, scored or not'),
    scored: z.int().describe('passed + failed'),
    passed: z.int(),
    failed: z.int(),
    errors: z.int().describe('execution errors; not scored'),
    in_progress: z.int().describe('started, not finished'),
    pass_rate: z.number().nullable().describe('passed / scored; null before anything is scored'),
    mean_reward: z.number().nullable(),
    reward_samples: z.int(),
  })
  .meta({ id: 'RLPhaseSummary' }));
export type RLPhaseSummary = z.infer<typeof RLPhaseSummary>;

export const RLComparison = lazy(() => z
  .looseObject({
    baseline_pass_rate: z.number(),
    evaluation_pass_rate: z.number(),
    change_pp: z.number().describe('(evaluation - baseline) x 100'),
    resolution_pp: z.number().describe('100 / max(scored baseline, scored evaluation)'),
    comparable: z.boolean(),
    measurable: z.boolean(),
    reason: z.enum([
      'comparable',
      'smallest_step',
      'different_attempt_counts',
      'different_tasks',
      'none_passed',
      'all_passed',
      'incomplete_events',
    ]),
    message: z.string().describe('empty exactly when reason is comparable'),
  })
  .meta({ id: 'RLComparison' }));
export type RLComparison = z.infer<typeof RLComparison>;

export const RLSummary = lazy(() => z
  .looseObject({
    schema_version: z.int(),
    workload_id: z.string(),
    phases: z.looseObject({ baseline: built(RLPhaseSummary), training: built(RLPhaseSummary), evaluation: built(RLPhaseSummary) }),
    comparison: built(RLComparison).nullable().describe('null until both baseline and evaluation have a scored attempt'),
    dropped_events: z.int(),
    truncated: z.boolean(),
  })
  .meta({ id: 'RLSummary' }));
export type RLSummary = z.infer<typeof RLSummary>;
