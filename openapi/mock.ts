import { z } from 'zod';
import { METHODS } from 'node:http';
import { clockMode, identityText, queryInteger, sha256Hex } from './primitives.js';
import { RLGradingReceipt } from './rl-evidence.js';
import { built, lazy } from './lazy.js';

/** Schemas of the /_mock control API (docs/control-api.md). */

export const ClockState = lazy(() => z
  .object({
    mode: built(clockMode),
    scale: z.number().describe('virtual seconds per wall second in realtime mode'),
    now: z.string().describe('RFC 3339 virtual time'),
  })
  .meta({ id: 'MockClock' }));

export const ClockUpdate = lazy(() => z
  .strictObject({
    mode: built(clockMode),
    scale: z.number().positive().max(1_000_000).optional(),
  })
  .meta({ id: 'MockClockUpdate' }));

const MAX_ADVANCE_SECONDS = 10 * 365 * 24 * 3600;

/** The lifecycle statuses of a workload, in the order a run passes them (interruptions between). */
const workloadStatus = lazy(() => z.enum([
  'accepted', 'planning', 'reserving', 'provisioning', 'running', 'recovering',
  'freezing', 'frozen', 'completed', 'failed', 'cancelled',
]));

export const ClockUntil = lazy(() => z
  .union([
    z.literal('idle').describe("every workload of the tenant has ended and no webhook delivery waits for a later virtual time"),
    z.strictObject({
      workload_id: z.string(),
      status: built(workloadStatus).describe('reached: the workload has been in this status, or (on the path accepted → … → running → completed) in a later one'),
    }),
    z.strictObject({ rule: z.string().min(1).max(128).describe('a workload rule of this tenant: it has applied to a workload') }),
  ], { error: `must be "idle", {"workload_id", "status"} with a status of ${built(workloadStatus).options.join(', ')}, or {"rule"}` })
  .meta({ id: 'MockClockUntil' }));

export const ClockAdvance = lazy(() => z
  .strictObject({
    seconds: z.number().positive().max(MAX_ADVANCE_SECONDS).optional().describe('virtual seconds to move forward (this or until)'),
    until: built(ClockUntil).optional().describe('move forward to the first virtual time at which this holds (this or seconds)'),
    max_seconds: z.number().positive().max(MAX_ADVANCE_SECONDS).optional()
      .describe('with until: how far it may move at most (default 604800, a virtual week)'),
  })
  .superRefine((body, ctx) => {
    if ((body.seconds === undefined) === (body.until === undefined)) {
      ctx.addIssue({ code: 'custom', path: body.seconds === undefined ? [] : ['until'], message: 'give exactly one of seconds and until' });
    }
    if (body.max_seconds !== undefined && body.until === undefined) {
      ctx.addIssue({ code: 'custom', path: ['max_seconds'], message: 'only allowed with until' });
    }
  })
  .meta({ id: 'MockClockAdvance' }));

export const ClockNow = lazy(() => z
  .object({
    now: z.string(),
    held: z.boolean().optional().describe('with until: true (a condition that cannot hold answers 409 and moves nothing)'),
  })
  .meta({ id: 'MockClockNow' }));

export const RecipeOverrideUpdate = lazy(() => z
  .strictObject({
    available: z.boolean(),
    unavailable_reason: z.string().min(1).max(512).optional().describe('shown to this tenant while unavailable'),
  })
  // Here rather than in the route so scenario files get the same rule with the same message.
  .refine((o) => !o.available || o.unavailable_reason === undefined, {
    path: ['unavailable_reason'],
    message: 'only allowed with available false',
  })
  .meta({ id: 'MockRecipeOverride' }));

export const LeversUpdate = lazy(() => z
  .strictObject({
    review_expiry: z.boolean().optional().describe("a launch after its preview's estimate.valid_until answers 409 review_changed (default false: reviews do not expire)"),
    unrecoverable_error_rate: z.number().min(0).max(1).nullable().optional()
      .describe("share of errored held-out attempts of this tenant's new launches that are not retried (null: each recipe's catalog value, 0)"),
  })
  .meta({ id: 'MockLevers' }));

export const BudgetUpdate = lazy(() => z
  .strictObject({
    monthly_spend_cap_usd: z.number().nonnegative().max(1e9),
    month_to_date_usd: z.number().nonnegative().max(1e9).optional().describe('spend already counted this month (default 0)'),
  })
  .meta({ id: 'MockBudget' }));

export const RecoverRequest = lazy(() => z
  .strictObject({
    replay_last: z.int().min(0).max(100_000).optional().describe('task events of the old generation reported again, with their event ids, in the new one (default 0)'),
  })
  .meta({ id: 'MockRecover' }));

export const DropEventsRequest = lazy(() => z
  .strictObject({ count: z.int().min(1).max(1_000_000_000) })
  .meta({ id: 'MockDropEvents' }));

export const FailRequest = lazy(() => z
  .strictObject({ reason: z.string().min(1).max(1024).optional() })
  .meta({ id: 'MockFail' }));

export const InterventionResult = lazy(() => z
  .object({
    workload_id: z.string(),
    status: z.string(),
    generation: z.int(),
    dropped_events: z.int(),
    truncated: z.boolean(),
  })
  .meta({ id: 'MockInterventionResult' }));

const FAULT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** An exact path, `{name}` segments standing for one segment each, an optional trailing `*`. */
const FAULT_PATH_PATTERN = /^(\/([^/?#*{}\s]*|\{[A-Za-z_][A-Za-z0-9_]*\}))+\*?$/;
/** How fault rules and the request journal name paths (server/domain/control/faults.ts matches them). */
const pathPattern = lazy(() => z
  .string()
  .max(1024)
  .regex(FAULT_PATH_PATTERN, 'must start with / and be an exact path, a template such as /v1/workloads/{id}, or a prefix ending in *; leave the query string out'));

export const FaultAction = lazy(() => z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('error'),
      status: z.number().int().min(400).max(599),
      error: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/).describe('the envelope\'s error code, e.g. spend_check_unavailable'),
      message: z.string().min(1).max(1024).default('fault injected by nodus-mock'),
      retry_after: z.number().min(0).max(86400).optional().describe('seconds, sent as Retry-After'),
    }).describe('answer with this status and envelope before the handler runs'),
    z.strictObject({
      type: z.literal('delay'),
      ms: z.number().int().min(1).max(60_000),
    }).describe('wait, then handle the request normally'),
    z.strictObject({ type: z.literal('reset') }).describe('destroy the connection before the handler runs: nothing happens'),
    z.strictObject({ type: z.literal('drop_response') })
      .describe('run the handler (it commits), then destroy the connection without answering'),
  ])
  .meta({ id: 'MockFaultAction' }));

export const FaultRule = lazy(() => z
  .strictObject({
    method: z.enum(FAULT_METHODS).optional().describe('any method when absent'),
    path: built(pathPattern).describe('exact path, route template (/v1/workloads/{id}) or prefix ending in *; the query string is ignored'),
    times: z.number().int().min(1).max(1_000_000).default(1).describe('matching requests it applies to'),
    after: z.number().int().min(0).max(1_000_000).default(0).describe('matching requests let through first'),
    action: built(FaultAction),
  })
  .meta({ id: 'MockFaultRule' }));

export const Fault = lazy(() => z
  .object({
    id: z.string(),
    method: z.enum(FAULT_METHODS).nullable().describe('null: any method'),
    path: z.string(),
    times: z.number().int(),
    after: z.number().int(),
    action: built(FaultAction),
    remaining: z.number().int().describe('applications left (times − applied)'),
    seen: z.number().int().describe('matching requests this rule has counted while live'),
    applied: z.number().int(),
    source: z.enum(['api', 'scenario']),
    created_at: z.string().describe('RFC 3339 virtual time'),
  })
  .meta({ id: 'MockFault' }));

export const FaultList = lazy(() => z.object({ faults: z.array(built(Fault)) }).meta({ id: 'MockFaultList' }));

/** Where each kind of journal row lies: /v1 requests are `api`, the tenant's own /_mock calls `control`. */
export const JOURNAL_ROOTS = { api: '/v1', control: '/_mock' } as const;
export const journalKind = lazy(() => z.enum(['api', 'control']));

/** Request headers the journal never keeps: they carry credentials. */
export const UNJOURNALED_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'];
/** What a row keeps of the headers at most, like its body: the first ones as they arrived. */
export const JOURNAL_HEADER_LIMITS = { count: 64, bytes: 8 * 1024 } as const;

/** A header name as HTTP allows it (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const headerNames = (names: string[]) => names.every((name) => HEADER_NAME.test(name) && name === name.toLowerCase());
/** The headers of a row as stored and shown: lower-case names, values as sent, within the limits. */
export const JournalHeaders = lazy(() => z
  .record(z.string(), z.string())
  .refine((h) => headerNames(Object.keys(h)), 'header names are lower-case HTTP tokens')
  .refine((h) => !Object.keys(h).some((name) => UNJOURNALED_HEADERS.includes(name)), `${UNJOURNALED_HEADERS.join(', ')} are never kept`)
  .refine((h) => Object.keys(h).length <= JOURNAL_HEADER_LIMITS.count, `at most ${JOURNAL_HEADER_LIMITS.count} headers`)
  .refine((h) => Object.entries(h).reduce((n, [name, value]) => n + name.length + value.length, 0) <= JOURNAL_HEADER_LIMITS.bytes,
    `at most ${JOURNAL_HEADER_LIMITS.bytes} characters of names and values (a byte each, as received)`));

/** The methods Node's parser takes: no row holds another. */
const journalMethod = lazy(() => z
  .string()
  .max(16)
  .refine((m) => METHODS.includes(m.toUpperCase()), 'is not an HTTP method')
  .describe('an HTTP method, case-insensitive'));

const journalPath = lazy(() => built(pathPattern).describe('as fault rules match: exact path, template (/v1/workloads/{id}) or prefix ending in *; one that can match no journaled request answers 400'));

export const JournalQuery = lazy(() => z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  path: built(journalPath).optional(),
  method: built(journalMethod).optional(),
  kind: built(journalKind).optional().describe('api: /v1 requests; control: the tenant\'s own /_mock calls (default: both)'),
}));

export const JournalEntry = lazy(() => z
  .object({
    id: z.number().int().describe('increases with each journaled request; never reused'),
    kind: built(journalKind).describe('api: a /v1 request; control: one of the tenant\'s own /_mock calls'),
    at: z.string().describe('RFC 3339 virtual time the request arrived'),
    wall_at: z.string().describe('RFC 3339 wall-clock time the request arrived'),
    method: z.string(),
    path: z.string().describe('as sent, without the query string'),
    query: z.record(z.string(), z.union([z.string(), z.array(z.string())])).describe('as sent; a repeated name gives an array'),
    headers: z.record(z.string(), z.string())
      .describe(`lower-case names, values as sent; never ${UNJOURNALED_HEADERS.join(', ')}; none for a secrets path`),
    headers_truncated: z.boolean().describe(`headers past the first ${JOURNAL_HEADER_LIMITS.count} or ${JOURNAL_HEADER_LIMITS.bytes} bytes were left out`),
    status: z.number().int().nullable().describe('null when the connection was reset or dropped unanswered'),
    request_id: z.string(),
    idempotency_key: z.string().nullable(),
    replayed: z.boolean().describe('the answer carried Idempotent-Replayed: true'),
    fault: z.enum(['error', 'delay', 'reset', 'drop_response']).nullable(),
    fault_id: z.string().nullable(),
    body: z.unknown().describe('parsed JSON when JSON, else text; null without a body; a cut body is text ending in a marker'),
    body_bytes: z.number().int().describe('bytes received'),
    body_truncated: z.boolean(),
    duration_ms: z.number(),
  })
  .meta({ id: 'MockJournalEntry' }));

const evicted = lazy(() => z.number().int().describe('rows the journal evicted (past --journal-size) since it was last emptied: cleared, reset or restored'));

export const JournalList = lazy(() => z.object({ requests: z.array(built(JournalEntry)), evicted: built(evicted) }).meta({ id: 'MockJournal' }));

/** A JSON pointer (RFC 6901): '' for the whole body, else `/` before each step. */
const JSON_POINTER = /^(\/([^~]|~[01])*)*$/;
const fields = <V extends z.ZodType>(key: z.ZodString, value: V, what: string) => z
  .record(key, value)
  .refine((o) => Object.keys(o).length <= 64, `at most 64 ${what}`);

export const JournalMatch = lazy(() => z
  .strictObject({
    method: built(journalMethod).optional(),
    path: built(journalPath).optional(),
    kind: built(journalKind).optional(),
    query: fields(z.string().min(1).max(256), z.union([z.string().max(4096), z.array(z.string().max(4096)).max(64)]), 'query fields').optional()
      .describe('each name\'s value as sent (an array for a repeated name)'),
    headers: fields(z.string().regex(HEADER_NAME, 'is not a header name'), z.string().max(JOURNAL_HEADER_LIMITS.bytes), 'headers').optional()
      .describe('each header\'s value as sent; names in any case'),
    body: fields(z.string().max(1024).regex(JSON_POINTER, 'is not a JSON pointer (\'\' or /a/0/b)'), z.unknown(), 'body fields').optional()
      .describe('JSON pointer → the value there, compared as JSON (key order aside)'),
    status: z.int().min(100).max(599).nullable().optional().describe('null: the connection was reset or dropped unanswered'),
    replayed: z.boolean().optional(),
    limit: z.int().min(1).max(1000).default(100).describe('matches answered at most, oldest first (count counts them all)'),
  })
  .meta({ id: 'MockJournalMatch' }));

const JournalDifference = lazy(() => z
  .object({
    field: z.string().describe('method, path, kind, status, replayed, query.<name>, headers.<name> or body.<pointer>'),
    expected: z.unknown(),
    actual: z.unknown().describe('null when the request has no such field'),
    absent: z.boolean().optional().describe('true when the request has no such field'),
  })
  .meta({ id: 'MockJournalDifference' }));

export const JournalMatchResult = lazy(() => z
  .object({
    matches: z.array(built(JournalEntry)).describe('the matching rows, oldest first, up to limit'),
    count: z.number().int().describe('how many rows match'),
    evicted: built(evicted),
    nearest: z.array(z.object({ request: built(JournalEntry), differences: z.array(built(JournalDifference)) }))
      .describe('without a match: up to 3 rows that differ in the fewest fields (newest first among equals), with every field that differs'),
  })
  .meta({ id: 'MockJournalMatchResult' }));

export const ResetResult = lazy(() => z
  .object({
    reset: z.literal(true),
    deleted: z.record(z.string(), z.number().int()).describe('rows deleted per table (rows removed by cascade not counted)'),
  })
  .meta({ id: 'MockReset' }));

const MAX_INT32 = 2147483647;

const stageId = lazy(() => identityText(128).describe("a stage of the workload (default: its first stage, usually `main`)"));
const generationField = 'a generation from 1 to the current one (default: the current one)';

export const IngestEventsRequest = lazy(() => z
  .strictObject({
    events: z.array(z.unknown()).describe('RLEvent objects; each is validated on its own, and the valid ones are kept'),
    stage_id: built(stageId).optional(),
    generation: z.int().min(1).max(MAX_INT32).optional().describe(generationField),
  })
  .meta({ id: 'MockIngestEvents' }));

export const IngestEventsText = lazy(() => z
  .string()
  .describe('the workload\'s stdout: each `nodus.rl_event {json}` line is an event, other lines are only logged')
  .meta({ id: 'MockIngestEventsText' }));

/** Where a text body says which stage and generation it came from. */
export const IngestEventsQuery = lazy(() => z.strictObject({
  stage_id: built(stageId).optional(),
  generation: queryInteger(1, MAX_INT32).optional().describe(generationField),
}));

export const IngestEventsResult = lazy(() => z
  .object({
    workload_id: z.string(),
    stage_id: z.string(),
    generation: z.int(),
    accepted: z.int().describe('events stored as new rows'),
    duplicates: z.int().describe('repeats of an event already stored with identical content: ignored, not an error'),
    dropped: z.int().describe('valid events not stored because of the per-workload bounds or the 16 KiB cap; counted in dropped_events'),
    rejected: z
      .array(
        z.object({
          index: z.int().describe('position in `events`, or among the `nodus.rl_event` lines of a text body'),
          line: z.int().optional().describe('1-based line of a text body'),
          error: z.enum(['invalid_json', 'invalid_event', 'phase_not_allowed', 'event_id_conflict', 'identity_conflict']),
          message: z.string(),
        }),
      )
      .describe('refused events, by index'),
    dropped_events: z.int(),
    truncated: z.boolean(),
  })
  .meta({ id: 'MockIngestEventsResult' }));

export const GradingPlanUpdate = lazy(() => z
  .strictObject({
    revision: z.int().min(1).max(MAX_INT32).optional().describe("the plan's revision (default: the workload's, 1)"),
    plan_sha256: built(sha256Hex)
      .optional()
      .describe("the plan's hash (default: the first receipt's, else the one the simulator derives); receipts naming another make the results unverifiable (500)"),
    receipts: z
      .array(built(RLGradingReceipt))
      .max(10_000)
      .optional()
      .describe('stored as given; without them they are simulated (privately graded recipe runs, revision 1) or derived from the reported evaluation attempts'),
  })
  .superRefine((body, ctx) => {
    const first = new Map<string, number>();
    body.receipts?.forEach((r, i) => {
      const seen = first.get(r.attempt_id);
      if (seen !== undefined) ctx.addIssue({ code: 'custom', path: ['receipts', i, 'attempt_id'], message: `repeats receipts.${seen}.attempt_id` });
      else first.set(r.attempt_id, i);
    });
  })
  .meta({ id: 'MockGradingPlan' }));

export const GradingPlanResult = lazy(() => z
  .object({
    workload_id: z.string(),
    revision: z.int(),
    plan_sha256: built(sha256Hex),
    source: z.enum(['given', 'simulated', 'derived']).describe('simulated receipts keep following virtual time; given and derived ones are fixed'),
    receipts: z.array(built(RLGradingReceipt)),
  })
  .meta({ id: 'MockGradingPlanResult' }));
