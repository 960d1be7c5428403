import { createHash, type Hash } from 'node:crypto';
import { z } from 'zod';
import { AssetFiles } from '../../../openapi/mock-assets.js';
import { ConnectionExport } from '../../../openapi/assets.js';
import { IdempotencyKey } from '../../../openapi/headers.js';
import { built, lazy, once } from '../../../openapi/lazy.js';
import {
  BudgetUpdate, DropEventsRequest, FailRequest, FaultRule, JOURNAL_ROOTS, JournalEntry, JournalHeaders, JournalQuery, LeversUpdate, RecipeOverrideUpdate,
  RecoverRequest,
} from '../../../openapi/mock.js';
import { jsonObject, sha256Hex } from '../../../openapi/primitives.js';
import { isPlainRLEvent, RL_EVENT_MAX_ENCODED_BYTES, RLEvent, RLGradingReceipt } from '../../../openapi/rl-evidence.js';
import { SECRET_NAME } from '../../../openapi/secrets.js';
import type { SnapshotDocument } from '../../../openapi/snapshot.js';
import { WebhookRequest } from '../../../openapi/webhooks.js';
import { WorkloadRule, WorkloadRuleAction, WorkloadRuleTrigger } from '../../../openapi/workload-rules.js';
import { Workload } from '../../../openapi/workloads.js';
import { WorkloadPayload } from '../../../openapi/workload-payload.js';
import type { SnapshotTable } from '../../../store/snapshot.js';
import { estimateRun } from '../../simulator/estimate.js';
import { isTerminal, WORKLOAD_STATUSES } from '../../simulator/types.js';
import type { Config } from '../../config.js';
import { MAX_ARCHIVE_ENTRIES } from '../assets/archive-entries.js';
import { CLOCK_RANGE_MS, inClockRange, isoTime } from '../clock.js';
import { egressHosts, planConnection, type PlannedConnection } from '../connections/rules.js';
import { badRequest, DomainError } from '../errors.js';
import { nestsTooDeep, TOO_DEEP } from '../json-text.js';
import { KEYED_OPERATIONS } from '../keyed-admission.js';
import { StoredSimSpec } from '../launches/spec.js';
import { RESERVED_PREFIX } from '../secrets/service.js';
import { refusedWebhookUrl } from '../webhooks/hosts.js';
import { rlEventInput } from '../workloads/materialise.js';

/*
 * What a restore checks before it deletes or writes anything (docs/snapshots.md, "What a restore
 * checks"): every row is held to the rules of the code that wrote it, so a restored tenant holds
 * only state the API could have made. The zod parse (openapi/snapshot.ts) has checked each
 * column's type; these are the rules of the values, of the JSON the text columns hold, and of the
 * rows together. Row by row, then once at the end, so a streaming reader can feed them.
 */

type Tables = SnapshotDocument['tenant']['tables'];
type RowOf<T extends SnapshotTable> = NonNullable<Tables[T]>[number];
type Clock = SnapshotDocument['tenant']['clock'];

/** The wire's integers: sequence numbers, generations, attempts, revisions. */
const MAX_SEQ = 2 ** 31 - 1;
/** Byte and event counters: far above what any route adds up, so a sum of them stays exact. */
const MAX_COUNT = 2 ** 48;
/** Wall milliseconds one request or delivery took. */
const MAX_DURATION_MS = 1e9;
/** The longest --idempotency-ttl (server/config.ts). */
const MAX_TTL_MS = 365 * 24 * 3600 * 1000;

const usd = lazy(() => built(BudgetUpdate).shape.monthly_spend_cap_usd);
const httpStatus = lazy(() => z.int().min(100).max(599));

/** The id of a workload rule, as control/workload-rules.ts makes it. */
const RULE_ID = /^wr_[0-9A-Za-z]{16}$/;
/** The workload rule that made an intervention, when one did (workloads/interventions.ts). */
const rule = lazy(() => z.string().regex(RULE_ID).optional());

const interventionArgs = once((): Record<string, z.ZodType> => ({
  cancel: z.strictObject({}),
  freeze: z.strictObject({}),
  resume: z.strictObject({}),
  fail: z.strictObject({ reason: built(FailRequest).shape.reason.unwrap(), rule: built(rule) }),
  recover: z.strictObject({ replayLast: built(RecoverRequest).shape.replay_last.unwrap(), rule: built(rule) }),
  drop_events: z.strictObject({ count: built(DropEventsRequest).shape.count, rule: built(rule) }),
}));

/** What an asset of a connection query keeps of its export (server/http/views/asset.ts). */
const ExportSettings = lazy(() => built(ConnectionExport).pick({ id: true, connection_id: true, branch: true, format: true }).required());

/** A webhook delivery's body: the status change, and the workload as GET showed it then. */
const DeliveryBody = lazy(() => z.strictObject({ type: z.string(), id: z.string(), created_at: z.string(), data: built(Workload) }));

interface At {
  /** Refuses the document: `body.tenant.tables.<table>.<index>.<column>: <reason>`. */
  refuse(column: string, reason: string): never;
}

interface WorkloadFacts {
  createdAtMs: number;
  materialisedToMs: number;
  generation: number;
  revision: number;
  ended: boolean;
}

interface Counted {
  count: number;
  bytes: number;
}

export interface SnapshotChecks {
  /** Checks one row; throws the refusal of the first problem. Rows of a table come in document order. */
  row<T extends SnapshotTable>(table: T, index: number, row: RowOf<T>): void;
  /** The checks that need every row: references, counters. */
  finish(): void;
}

const refusal = (path: string, reason: string) => badRequest('invalid_snapshot', `body.tenant.${path}: ${reason}`);

/** A row's place, made for every row: an object of two fields rather than a closure. */
class RowAt implements At {
  constructor(readonly table: string, readonly index: number) {}
  refuse(column: string, reason: string): never {
    throw refusal(`tables.${this.table}.${this.index}.${column}`, reason);
  }
}

const issueText = (issue: z.core.$ZodIssue) => (issue.path.length ? `at ${issue.path.join('.')}, ` : '') + issue.message;

/** The server's settings the routes' rules read. */
export type CheckSettings = Pick<Config, 'webhookHosts'>;

export function createSnapshotChecks(clock: Clock, settings: CheckSettings): SnapshotChecks {
  const nowMs = clock.now_ms;
  if (!inClockRange(nowMs)) throw refusal('clock.now_ms', `${nowMs} is outside the clock's range, ${CLOCK_RANGE_MS.min} to ${CLOCK_RANGE_MS.max}`);

  /* ---- values ---- */

  const time = (at: At, column: string, ms: number, after?: [string, number]) => {
    if (!inClockRange(ms)) at.refuse(column, `${ms} is outside the clock's range, ${CLOCK_RANGE_MS.min} to ${CLOCK_RANGE_MS.max}`);
    if (after && ms < after[1]) at.refuse(column, `${ms} is before ${after[0]} (${after[1]})`);
  };
  /** A time that has happened: not after the document's now. */
  const past = (at: At, column: string, ms: number, after?: [string, number]) => {
    time(at, column, ms, after);
    if (ms > nowMs) at.refuse(column, `${ms} is after the clock's now_ms (${nowMs})`);
  };
  const within = (at: At, column: string, n: number, min: number, max: number) => {
    if (!(n >= min && n <= max)) at.refuse(column, `${n} is outside ${min} to ${max}`);
  };
  /** A value held to a schema; with `columnOf`, the value is a row's columns and the issue names its column. */
  const valid = <S extends z.ZodType>(at: At, column: string, schema: S, value: unknown, columnOf?: (key: string) => string): z.output<S> => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      if (!columnOf) at.refuse(column, issueText(issue));
      at.refuse(columnOf(String(issue.path[0])), issueText({ ...issue, path: issue.path.slice(1) }));
    }
    return parsed.data;
  };
  /** A text column holding JSON: parsed, then held to what the code that reads it expects. */
  const json = <S extends z.ZodType>(at: At, column: string, text: string, schema: S): z.output<S> =>
    valid(at, column, schema, parsed(at, column, text));
  /** `shallow`: a value it takes cannot nest too deep, so its text need not be walked for depth. */
  const parsed = (at: At, column: string, text: string, shallow?: (value: unknown) => boolean): unknown => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      at.refuse(column, 'is not JSON');
    }
    if (!shallow?.(value) && nestsTooDeep(text)) at.refuse(column, `is ${TOO_DEEP}`);
    return value;
  };

  /* ---- keys, references and counters across rows ---- */

  /** Per table, per column: the keys seen, and the row each was first seen in. */
  const seen = new Map<string, Map<string, Map<string, number>>>();
  /** A key the database holds once (or the server numbers once) per tenant. */
  const unique = (at: At, table: string, column: string, index: number, ...key: unknown[]) => {
    // Maps by the names as given, rather than by a name made of both: the made one was hashed
    // anew on every row, a third of this function's time.
    let columns = seen.get(table);
    if (!columns) seen.set(table, (columns = new Map()));
    let keys = columns.get(column);
    if (!keys) columns.set(column, (keys = new Map()));
    // Two keys that differ can only meet if a part holds a NUL: a false "repeats" for a document
    // made to, never a repeat let through. JSON.stringify here was an eighth of the checks' time.
    // join makes one flat string: a key made with + or a template stays a tree of its parts,
    // which a map of keys kept alive (13 MiB more for a 1,000-workload document).
    const text = key.length === 1 ? String(key[0]) : key.join('\0');
    const first = keys.get(text);
    if (first !== undefined) at.refuse(column, `repeats the key of row ${first}`);
    keys.set(text, index);
  };
  const serverKey = (at: At, table: string, column: string, index: number, n: number) => {
    within(at, column, n, 1, MAX_SEQ);
    unique(at, table, column, index, n);
  };

  /** Per table, each workload's last seq. */
  const lastSeq = new Map<string, Map<string, number>>();
  /** The numbering of a workload's evidence: 1, 2, 3... in document order, gaps allowed. */
  const workloadSeq = (at: At, table: string, workloadId: string, seq: number) => {
    within(at, 'seq', seq, 1, MAX_SEQ);
    let seqs = lastSeq.get(table);
    if (!seqs) lastSeq.set(table, (seqs = new Map()));
    const last = seqs.get(workloadId) ?? 0;
    if (seq <= last) at.refuse('seq', `${seq} does not follow the workload's previous ${table} seq ${last}`);
    seqs.set(workloadId, seq);
  };

  const workloads = new Map<string, WorkloadFacts>();
  const assets = new Set<string>();
  const deliveries = new Map<number, { createdAtMs: number; attempts: number }>();
  const plans = new Set<string>();
  const ruleIds = new Set<string>();
  const connectionIds = new Set<string>();
  const secretVersions = new Map<string, number>();
  /** Each workload's latest intervention time, in document (seq) order. */
  const lastIntervention = new Map<string, number>();
  // A row naming a parent the document does not hold would attach this tenant's state to another
  // tenant's row (the database's foreign keys cannot tell them apart).
  /** Checks that wait for a parent row the document has not shown yet; run (or refused) at the end. */
  const waiting: (() => void)[] = [];
  const parent = <P>(at: At, column: string, table: string, key: string, value: string | number, found: () => P | undefined, then?: (p: P) => void) => {
    const run = (last: boolean) => {
      const p = found();
      if (p === undefined && last) at.refuse(column, `names ${table} ${key} ${value}, which this snapshot does not hold`);
      if (p !== undefined) then?.(p);
      return p !== undefined;
    };
    if (!run(false)) waiting.push(() => run(true));
  };
  const workload = (at: At, id: string, then?: (w: WorkloadFacts) => void) => {
    // Workloads come first in a document the server wrote: found at once, without parent's closures.
    const w = workloads.get(id);
    if (w !== undefined) then?.(w);
    else parent(at, 'workload_id', 'workloads', 'id', id, () => workloads.get(id), then);
  };
  /**
   * A row of a workload's evidence: of one of its generations, not before it was created, not
   * after what was materialised of it (which an intervention moves 1 ms past the clock's now).
   */
  const evidence = (at: At, id: string, column: string, atMs: number, generation?: number) => {
    time(at, column, atMs);
    if (generation !== undefined) within(at, 'generation', generation, 1, MAX_SEQ);
    workload(at, id, (w) => {
      if (atMs < w.createdAtMs) at.refuse(column, `${atMs} is before its workload was created (${w.createdAtMs})`);
      const reached = Math.max(nowMs, w.materialisedToMs);
      if (atMs > reached) at.refuse(column, `${atMs} is after the clock's now_ms and what its workload materialised (${reached})`);
      if (generation !== undefined && generation > w.generation) at.refuse('generation', `${generation} is after its workload's generation ${w.generation}`);
    });
  };

  const assetFacts = new Map<string, { at: At; sha256: string; bytes: number }>();
  const assetContents = new Map<string, { parts: number; bytes: number; hash: Hash }>();
  const rlEvents = new Map<string, Counted>();
  const logAttempts = new Map<string, Counted & { index?: number; at?: At; firstLine: At }>();
  const workloadCounters: (() => void)[] = [];
  const attemptCounters: (() => void)[] = [];

  /* ---- the tables ---- */

  const rules: { [T in SnapshotTable]: (at: At, row: RowOf<T>, index: number) => void } = {
    workloads(at, w, index) {
      unique(at, 'workloads', 'id', index, w.id);
      if (!(WORKLOAD_STATUSES as readonly string[]).includes(w.status)) at.refuse('status', `"${w.status}" is not a workload status (${WORKLOAD_STATUSES.join(', ')})`);
      if (w.settled === 1 && !isTerminal(w.status)) at.refuse('settled', `a ${w.status} workload has not ended`);
      const payload = json(at, 'payload', w.payload, WorkloadPayload);
      if (w.name !== (payload.name ?? null)) at.refuse('name', 'differs from its payload\'s name');
      const spec = json(at, 'spec', w.spec, StoredSimSpec);
      if (spec.workloadId !== w.id) at.refuse('spec', 'names another workload');
      if (spec.kind !== w.kind) at.refuse('spec', `is a ${spec.kind} run's, not a ${w.kind} run's`);
      if (spec.createdAtMs !== w.created_at_ms) at.refuse('spec', `was made at ${spec.createdAtMs}, not at the workload's created_at_ms`);
      past(at, 'created_at_ms', w.created_at_ms);
      const endMs = w.created_at_ms + Math.ceil(estimateRun(spec).completionSeconds.high * 1000);
      if (!inClockRange(endMs)) at.refuse('spec', `runs until ${endMs}, past the clock's range (${CLOCK_RANGE_MS.max})`);
      // A new workload is materialised to just before its creation (workloads/rows.ts); an
      // intervention takes effect 1 ms after the clock's now and materialises the run that far.
      time(at, 'materialised_to_ms', w.materialised_to_ms, ['created_at_ms - 1', w.created_at_ms - 1]);
      time(at, 'updated_at_ms', w.updated_at_ms, ['created_at_ms', w.created_at_ms]);
      if (w.updated_at_ms > Math.max(w.created_at_ms, w.materialised_to_ms)) at.refuse('updated_at_ms', 'is after materialised_to_ms');
      valid(at, 'estimated_cost_usd', usd, w.estimated_cost_usd);
      valid(at, 'spend_usd', usd, w.spend_usd);
      within(at, 'revision', w.revision, 1, MAX_SEQ);
      within(at, 'generation', w.generation, 1, MAX_SEQ);
      within(at, 'rl_event_count', w.rl_event_count, 0, MAX_COUNT);
      within(at, 'rl_event_bytes', w.rl_event_bytes, 0, MAX_COUNT);
      within(at, 'dropped_events', w.dropped_events, 0, MAX_COUNT);
      // Only a drop marks a workload's evidence truncated (store/rl-events.ts).
      if ((w.dropped_events > 0) !== (w.truncated === 1)) at.refuse('truncated', `is ${w.truncated} with ${w.dropped_events} dropped events`);
      workloads.set(w.id, { createdAtMs: w.created_at_ms, materialisedToMs: w.materialised_to_ms, generation: w.generation, revision: w.revision, ended: isTerminal(w.status) });
      workloadCounters.push(() => {
        const reached = Math.max(nowMs, lastIntervention.get(w.id) ?? nowMs);
        if (w.materialised_to_ms > reached) at.refuse('materialised_to_ms', `${w.materialised_to_ms} is after the clock's now_ms and its last intervention (${reached})`);
        const stored = rlEvents.get(w.id) ?? { count: 0, bytes: 0 };
        if (w.rl_event_count !== stored.count) at.refuse('rl_event_count', `is ${w.rl_event_count}, but the snapshot holds ${stored.count} rl_events rows of the workload`);
        if (w.rl_event_bytes !== stored.bytes) at.refuse('rl_event_bytes', `is ${w.rl_event_bytes}, but its rl_events rows hold ${stored.bytes} bytes`);
      });
    },
    assets(at, a, index) {
      serverKey(at, 'assets', 'seq', index, a.seq);
      unique(at, 'assets', 'id', index, a.id);
      if (a.idempotency_key !== null) unique(at, 'assets', 'idempotency_key', index, a.idempotency_key);
      valid(at, 'sha256', sha256Hex, a.sha256);
      within(at, 'bytes', a.bytes, 0, MAX_COUNT);
      past(at, 'created_at_ms', a.created_at_ms);
      // An import is ready at a time fixed when it starts, which may still be ahead.
      if (a.ready_at_ms !== null) time(at, 'ready_at_ms', a.ready_at_ms, ['created_at_ms', a.created_at_ms]);
      if (a.deleted_at_ms !== null) past(at, 'deleted_at_ms', a.deleted_at_ms, ['created_at_ms', a.created_at_ms]);
      if ((a.state === 'deleted') !== (a.deleted_at_ms !== null)) at.refuse('deleted_at_ms', `is ${a.deleted_at_ms} for a ${a.state} asset`);
      if ((a.archive === null) !== (a.files === null)) at.refuse('files', 'is listed exactly for an archive');
      if (a.files !== null) json(at, 'files', a.files, AssetFiles.shape.files.max(MAX_ARCHIVE_ENTRIES));
      if ((a.kind === 'connection_query') !== (a.export !== null)) at.refuse('export', 'is kept exactly for a connection_query import');
      if (a.export !== null) json(at, 'export', a.export, ExportSettings);
      assets.add(a.id);
      assetFacts.set(a.id, { at, sha256: a.sha256, bytes: a.bytes });
    },
    idempotency_keys(at, k, index) {
      unique(at, 'idempotency_keys', 'key', index, k.scope, k.key);
      valid(at, 'scope', z.enum(KEYED_OPERATIONS), k.scope);
      valid(at, 'key', IdempotencyKey, k.key);
      valid(at, 'fingerprint', sha256Hex, k.fingerprint);
      past(at, 'created_at_ms', k.created_at_ms);
      time(at, 'expires_at_ms', k.expires_at_ms, ['created_at_ms', k.created_at_ms]);
      if (k.expires_at_ms - k.created_at_ms > MAX_TTL_MS) at.refuse('expires_at_ms', 'is further from created_at_ms than the longest --idempotency-ttl');
      // A record keeps the workload it admitted: a replay answers it.
      if (k.workload_id === null) at.refuse('workload_id', 'is null, but a record names the workload it admitted');
      else workload(at, k.workload_id);
    },
    recipe_overrides(at, o, index) {
      unique(at, 'recipe_overrides', 'recipe_id', index, o.recipe_id);
      valid(at, 'unavailable_reason', RecipeOverrideUpdate,
        { available: o.available === 1, ...(o.unavailable_reason === null ? {} : { unavailable_reason: o.unavailable_reason }) });
    },
    budgets(at, b) {
      valid(at, '', BudgetUpdate, b, (key) => key);
    },
    tenant_levers(at, l) {
      valid(at, 'unrecoverable_error_rate', LeversUpdate, { review_expiry: l.review_expiry === 1, unrecoverable_error_rate: l.unrecoverable_error_rate });
    },
    reviews(at, r, index) {
      unique(at, 'reviews', 'token', index, r.token);
      time(at, 'valid_until_ms', r.valid_until_ms);
    },
    faults(at, f, index) {
      serverKey(at, 'faults', 'seq', index, f.seq);
      unique(at, 'faults', 'id', index, f.id);
      // Exactly what POST /_mock/faults takes.
      let action: unknown;
      try {
        action = JSON.parse(f.action);
      } catch {
        at.refuse('action', 'is not JSON');
      }
      const rule = valid(at, '', FaultRule, { ...(f.method === null ? {} : { method: f.method }), path: f.path, times: f.times, after: f.after_count, action },
        (key) => (key === 'after' ? 'after_count' : key));
      if (JSON.stringify(rule.action) !== JSON.stringify(action)) at.refuse('action', 'is not as POST /_mock/faults stores it (every default filled in)');
      within(at, 'seen', f.seen, 0, MAX_COUNT);
      within(at, 'applied', f.applied, 0, f.times);
      if (f.applied > f.seen) at.refuse('applied', `${f.applied} is more than the ${f.seen} requests it has seen`);
      past(at, 'created_at_ms', f.created_at_ms);
    },
    request_journal(at, r, index) {
      serverKey(at, 'request_journal', 'id', index, r.id);
      within(at, 'seq', r.seq, 1, MAX_SEQ);
      unique(at, 'request_journal', 'seq', index, r.seq);
      past(at, 'at_ms', r.at_ms);
      time(at, 'wall_ms', r.wall_ms);
      valid(at, 'method', JournalQuery.shape.method.unwrap(), r.method);
      // Rows as the reader holds them (addedColumns) always have the columns a later version added.
      const root = JOURNAL_ROOTS[r.kind!];
      if (!r.path.startsWith(root)) at.refuse('path', `is not under ${root}, where ${r.kind} rows lie`);
      json(at, 'headers', r.headers!, JournalHeaders);
      if (r.status !== null) valid(at, 'status', httpStatus, r.status);
      valid(at, 'fault', JournalEntry.shape.fault, r.fault);
      within(at, 'body_bytes', r.body_bytes, 0, MAX_COUNT);
      within(at, 'duration_ms', r.duration_ms, 0, MAX_DURATION_MS);
    },
    scenario_applied(at, s) {
      valid(at, 'entry_sha256', sha256Hex, s.entry_sha256);
      past(at, 'applied_at_ms', s.applied_at_ms);
    },
    webhooks(at, h) {
      valid(at, '', WebhookRequest, { url: h.url, secret: h.secret }, (key) => key);
      // The hosts this server delivers to (--webhook-hosts), as PUT /v1/webhooks holds them.
      const refused = refusedWebhookUrl(h.url, settings);
      if (refused !== undefined) at.refuse('url', refused);
      past(at, 'since_ms', h.since_ms);
      past(at, 'updated_at_ms', h.updated_at_ms, ['since_ms', h.since_ms]);
    },
    workload_interventions(at, i) {
      workloadSeq(at, 'workload_interventions', i.workload_id, i.seq);
      evidence(at, i.workload_id, 'at_ms', i.at_ms);
      // Each 1 ms after the clock's now or the one before it (unit-of-work.ts), in seq order.
      const after = Math.max(nowMs, lastIntervention.get(i.workload_id) ?? nowMs);
      if (i.at_ms > after + 1) at.refuse('at_ms', `${i.at_ms} is more than 1 ms after the clock's now_ms and the workload's intervention before it (${after})`);
      lastIntervention.set(i.workload_id, Math.max(i.at_ms, lastIntervention.get(i.workload_id) ?? i.at_ms));
      const args = interventionArgs()[i.kind];
      if (!args) at.refuse('kind', `"${i.kind}" is not an intervention (${Object.keys(interventionArgs()).join(', ')})`);
      json(at, 'args', i.args, args);
    },
    workload_events(at, e, index) {
      workloadSeq(at, 'workload_events', e.workload_id, e.seq);
      unique(at, 'workload_events', 'event_id', index, e.workload_id, e.event_id);
      if (e.event_type === '') at.refuse('event_type', 'is empty');
      json(at, 'payload', e.payload, jsonObject);
      evidence(at, e.workload_id, 'created_at_ms', e.created_at_ms);
    },
    rl_events(at, e, index) {
      workloadSeq(at, 'rl_events', e.workload_id, e.seq);
      evidence(at, e.workload_id, 'received_at_ms', e.received_at_ms, e.generation);
      if (e.stage_id === '') at.refuse('stage_id', 'is empty');
      const bytes = Buffer.byteLength(e.event, 'utf8');
      if (bytes > RL_EVENT_MAX_ENCODED_BYTES) at.refuse('event', `is ${bytes} bytes, over the ${RL_EVENT_MAX_ENCODED_BYTES} of one event`);
      // Stored as the materialiser and ingest store it: pages serve the text, a repeat is compared with it.
      // Most events pass the compiled check of what RLEvent takes unchanged (a shape of a few
      // levels, never too deep); zod parses the rest.
      const value = parsed(at, 'event', e.event, isPlainRLEvent);
      const stored = rlEventInput(e.stage_id, e.generation, e.received_at_ms, isPlainRLEvent(value) ? value : valid(at, 'event', RLEvent, value));
      const differs = (column: string) => at.refuse(column, `differs from the event's ${column}`);
      if (e.event_id !== stored.eventId) differs('event_id');
      if (e.phase !== stored.phase) differs('phase');
      if (e.task_id !== stored.taskId) differs('task_id');
      if (e.attempt !== stored.attempt) differs('attempt');
      if (e.kind !== stored.kind) differs('kind');
      if (e.event !== stored.event) at.refuse('event', 'is not the canonical JSON of the event');
      unique(at, 'rl_events', 'event_id', index, e.workload_id, e.stage_id, e.generation, e.event_id);
      unique(at, 'rl_events', 'attempt', index, e.workload_id, e.stage_id, e.generation, e.phase, e.task_id, e.attempt, e.kind);
      const c = rlEvents.get(e.workload_id);
      if (c) {
        c.count += 1;
        c.bytes += bytes;
      } else rlEvents.set(e.workload_id, { count: 1, bytes });
    },
    workload_logs(at, l) {
      workloadSeq(at, 'workload_logs', l.workload_id, l.seq);
      evidence(at, l.workload_id, 'at_ms', l.at_ms, l.generation);
      const key = `${l.workload_id}\n${l.stage_id}\n${l.generation}`;
      const a = logAttempts.get(key) ?? { count: 0, bytes: 0, firstLine: at };
      a.count += 1;
      a.bytes += Buffer.byteLength(l.line, 'utf8') + 1;
      logAttempts.set(key, a);
    },
    workload_log_attempts(at, a, index) {
      unique(at, 'workload_log_attempts', 'generation', index, a.workload_id, a.stage_id, a.generation);
      within(at, 'generation', a.generation, 1, MAX_SEQ);
      workload(at, a.workload_id, (w) => {
        if (a.generation > w.generation) at.refuse('generation', `${a.generation} is after its workload's generation ${w.generation}`);
      });
      within(at, 'bytes', a.bytes, 0, MAX_COUNT);
      const key = `${a.workload_id}\n${a.stage_id}\n${a.generation}`;
      attemptCounters.push(() => {
        const lines = logAttempts.get(key)?.bytes ?? 0;
        if (a.bytes !== lines) at.refuse('bytes', `is ${a.bytes}, but the attempt's workload_logs rows hold ${lines} bytes (each line and its line break)`);
      });
      const counted = logAttempts.get(key) ?? { count: 0, bytes: 0, firstLine: at };
      logAttempts.set(key, { ...counted, index, at });
    },
    grading_plans(at, p, index) {
      unique(at, 'grading_plans', 'revision', index, p.workload_id, p.revision);
      valid(at, 'plan_sha256', sha256Hex, p.plan_sha256);
      within(at, 'revision', p.revision, 1, MAX_SEQ);
      evidence(at, p.workload_id, 'created_at_ms', p.created_at_ms);
      workload(at, p.workload_id, (w) => {
        if (p.revision > w.revision) at.refuse('revision', `${p.revision} is after its workload's revision ${w.revision}`);
      });
      plans.add(`${p.workload_id}\n${p.revision}`);
    },
    grading_receipts(at, r, index) {
      unique(at, 'grading_receipts', 'attempt_id', index, r.workload_id, r.revision, r.attempt_id);
      evidence(at, r.workload_id, 'created_at_ms', r.created_at_ms);
      const key = `${r.workload_id}\n${r.revision}`;
      parent(at, 'revision', 'grading_plans', 'workload_id and revision', key.replace('\n', ' '), () => (plans.has(key) ? true : undefined));
      const receipt = json(at, 'receipt', r.receipt, RLGradingReceipt);
      if (receipt.attempt_id !== r.attempt_id) at.refuse('attempt_id', 'differs from its receipt\'s attempt_id');
    },
    workload_assets(at, wa, index) {
      unique(at, 'workload_assets', 'asset_id', index, wa.workload_id, wa.asset_id);
      workload(at, wa.workload_id);
      parent(at, 'asset_id', 'assets', 'id', wa.asset_id, () => (assets.has(wa.asset_id) ? true : undefined));
    },
    asset_contents(at, c, index) {
      unique(at, 'asset_contents', 'part', index, c.asset_id, c.part);
      within(at, 'part', c.part, 0, MAX_SEQ);
      parent(at, 'asset_id', 'assets', 'id', c.asset_id, () => (assets.has(c.asset_id) ? true : undefined));
      // The parts are the asset's bytes in order, as an upload stores them: what a read of the
      // contents serves under the asset's sha256 and size.
      let contents = assetContents.get(c.asset_id);
      if (!contents) assetContents.set(c.asset_id, (contents = { parts: 0, bytes: 0, hash: createHash('sha256') }));
      if (c.part !== contents.parts) at.refuse('part', `${c.part} is not the asset's next part (${contents.parts})`);
      const data = Buffer.from(c.data, 'base64');
      contents.parts += 1;
      contents.bytes += data.length;
      contents.hash.update(data);
    },
    webhook_deliveries(at, d, index) {
      serverKey(at, 'webhook_deliveries', 'seq', index, d.seq);
      unique(at, 'webhook_deliveries', 'id', index, d.id);
      const status = d.type.startsWith('workload.') ? d.type.slice('workload.'.length) : '';
      if (!(WORKLOAD_STATUSES as readonly string[]).includes(status)) at.refuse('type', `"${d.type}" is not workload.<a workload status>`);
      evidence(at, d.workload_id, 'created_at_ms', d.created_at_ms);
      const body = json(at, 'body', d.body, DeliveryBody);
      if (body.type !== d.type || body.id !== d.id || body.created_at !== isoTime(d.created_at_ms) || body.data.id !== d.workload_id) {
        at.refuse('body', 'does not announce this delivery (its type, id, created_at and workload)');
      }
      if (d.state === 'pending' && d.due_at_ms === null) at.refuse('due_at_ms', 'is null for a pending delivery');
      if (d.due_at_ms !== null) time(at, 'due_at_ms', d.due_at_ms);
      within(at, 'attempts', d.attempts, 0, MAX_SEQ);
      within(at, 'tries', d.tries, 0, d.attempts);
      const counted = { createdAtMs: d.created_at_ms, attempts: 0 };
      deliveries.set(d.seq, counted);
      workloadCounters.push(() => {
        if (d.attempts !== counted.attempts) at.refuse('attempts', `is ${d.attempts}, but the snapshot holds ${counted.attempts} webhook_attempts rows of it`);
      });
    },
    webhook_attempts(at, a, index) {
      unique(at, 'webhook_attempts', 'attempt', index, a.delivery_seq, a.attempt);
      within(at, 'attempt', a.attempt, 1, MAX_SEQ);
      time(at, 'wall_ms', a.wall_ms);
      past(at, 'at_ms', a.at_ms);
      if (a.status_code !== null) valid(at, 'status_code', httpStatus, a.status_code);
      within(at, 'latency_ms', a.latency_ms, 0, MAX_DURATION_MS);
      if (a.next_retry_at_ms !== null) time(at, 'next_retry_at_ms', a.next_retry_at_ms, ['at_ms', a.at_ms]);
      parent(at, 'delivery_seq', 'webhook_deliveries', 'seq', a.delivery_seq, () => deliveries.get(a.delivery_seq), (d) => {
        d.attempts += 1;
        if (a.at_ms < d.createdAtMs) at.refuse('at_ms', `${a.at_ms} is before its delivery was created (${d.createdAtMs})`);
      });
    },
    secrets(at, s, index) {
      serverKey(at, 'secrets', 'seq', index, s.seq);
      unique(at, 'secrets', 'id', index, s.id);
      unique(at, 'secrets', 'name', index, s.name);
      if (!SECRET_NAME.test(s.name) || s.name.startsWith(RESERVED_PREFIX)) at.refuse('name', `is not a secret name POST /v1/secrets takes (${SECRET_NAME}, not ${RESERVED_PREFIX}...)`);
      within(at, 'version', s.version, 1, MAX_SEQ);
      past(at, 'created_at_ms', s.created_at_ms);
      secretVersions.set(s.id, s.version);
    },
    connections(at, c, index) {
      serverKey(at, 'connections', 'seq', index, c.seq);
      unique(at, 'connections', 'id', index, c.id);
      unique(at, 'connections', 'name', index, c.name);
      const optional = (value: string | null) => value ?? undefined;
      // Exactly what POST /v1/connections takes, its secret already resolved to an id.
      const planned = (): PlannedConnection => {
        try {
          return planConnection({
            name: c.name, kind: c.kind, secret: c.secret_id, scope: c.scope, region: optional(c.region), branch: optional(c.branch),
            entity: optional(c.entity), project: optional(c.project), live_mode: c.live_mode === 1,
          });
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          const [, field, why] = /^body\.(\w+): (.*)$/.exec(err.message) ?? [undefined, 'name', err.message];
          return at.refuse(field === 'secret' ? 'secret_id' : field, why);
        }
      };
      const plan = planned();
      if (c.egress_hosts !== JSON.stringify(egressHosts(plan))) at.refuse('egress_hosts', `is not the hosts of a ${c.kind} connection: ${JSON.stringify(egressHosts(plan))}`);
      within(at, 'secret_version', c.secret_version, 1, MAX_SEQ);
      past(at, 'created_at_ms', c.created_at_ms);
      past(at, 'verified_at_ms', c.verified_at_ms);
      // A connection pins its secret's version at creation, which a put of the secret moves on
      // (and a delete removes the secret: a stale connection, which the document may hold).
      const pinned = () => {
        const version = secretVersions.get(c.secret_id);
        if (version !== undefined && c.secret_version > version) at.refuse('secret_version', `${c.secret_version} is after the version of secret ${c.secret_id} (${version})`);
      };
      if (secretVersions.has(c.secret_id)) pinned();
      else waiting.push(pinned);
      connectionIds.add(c.id);
    },
    workload_connections(at, wc, index) {
      unique(at, 'workload_connections', 'connection_id', index, wc.workload_id, wc.connection_id);
      // A connection is not deleted while a workload admitted with it has not ended; an ended
      // one keeps the id of a connection deleted since.
      workload(at, wc.workload_id, (w) => {
        if (!w.ended) parent(at, 'connection_id', 'connections', 'id', wc.connection_id, () => (connectionIds.has(wc.connection_id) ? true : undefined));
      });
    },
    workload_rules(at, r, index) {
      serverKey(at, 'workload_rules', 'seq', index, r.seq);
      unique(at, 'workload_rules', 'id', index, r.id);
      if (!RULE_ID.test(r.id)) at.refuse('id', `is not a workload rule id (${RULE_ID})`);
      // Exactly what POST /_mock/workload-rules takes, stored as it stores it.
      const given = { match: parsed(at, 'match', r.match), at: parsed(at, 'at', r.at), action: parsed(at, 'action', r.action) };
      const taken = valid(at, '', WorkloadRule, given, (key) => key);
      for (const column of ['match', 'at', 'action'] as const) {
        if (JSON.stringify(taken[column]) !== r[column]) at.refuse(column, 'is not as POST /_mock/workload-rules stores it (every default filled in)');
      }
      within(at, 'matched', r.matched, 0, MAX_COUNT);
      past(at, 'created_at_ms', r.created_at_ms);
      ruleIds.add(r.id);
    },
    workload_rule_bindings(at, b, index) {
      unique(at, 'workload_rule_bindings', 'rule_id', index, b.workload_id, b.rule_id);
      if (!RULE_ID.test(b.rule_id)) at.refuse('rule_id', `is not a workload rule id (${RULE_ID})`);
      within(at, 'position', b.position, 0, MAX_SEQ);
      within(at, 'reads', b.reads, 0, MAX_COUNT);
      for (const [column, schema] of [['at', WorkloadRuleTrigger], ['action', WorkloadRuleAction]] as const) {
        if (JSON.stringify(json(at, column, b[column], schema)) !== b[column]) at.refuse(column, 'is not as a rule stores it (every default filled in)');
      }
      if ((b.state === 'pending') !== (b.settled_at_ms === null)) at.refuse('settled_at_ms', `is ${b.settled_at_ms} for a ${b.state} binding`);
      if (b.state === 'pending' && b.note !== null) at.refuse('note', 'is set for a pending binding');
      if (b.settled_at_ms !== null) evidence(at, b.workload_id, 'settled_at_ms', b.settled_at_ms);
      else {
        workload(at, b.workload_id);
        // Removing a rule ends its pending bindings: one pending names a rule the tenant has.
        parent(at, 'rule_id', 'workload_rules', 'id', b.rule_id, () => (ruleIds.has(b.rule_id) ? true : undefined));
      }
    },
  };

  return {
    row(table, index, row) {
      (rules[table] as (at: At, row: RowOf<typeof table>, index: number) => void)(new RowAt(table, index), row, index);
    },
    finish() {
      for (const check of waiting) check();
      for (const [id, contents] of assetContents) {
        const asset = assetFacts.get(id)!;
        if (contents.bytes !== asset.bytes) asset.at.refuse('bytes', `is ${asset.bytes}, but its contents are ${contents.bytes} bytes`);
        if (contents.hash.digest('hex') !== asset.sha256) asset.at.refuse('sha256', 'is not the SHA-256 of its contents');
      }
      for (const check of workloadCounters) check();
      for (const check of attemptCounters) check();
      for (const [, a] of logAttempts) {
        if (a.at === undefined) a.firstLine.refuse('stage_id', 'is a line of an attempt workload_log_attempts does not hold');
      }
    },
  };
}
