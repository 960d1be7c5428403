import type { z } from 'zod';
import type { IngestEventsQuery, IngestEventsRequest, IngestEventsResult } from '../../../openapi/mock.js';
import { RLEvent } from '../../../openapi/rl-evidence.js';
import type { RLEventInput } from '../../../store/rl-events.js';
import type { LogInput } from '../../../store/workload-runtime.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { describeValidation } from '../validation.js';
import { rlEventInput } from '../workloads/materialise.js';
import { RL_EVENT_PREFIX, rlEventLine, type SimSpec } from '../../simulator/index.js';
import type { DomainContext } from '../context.js';
import type { TenantUnit } from '../unit.js';
import { DomainError, conflict, invalidRequest } from '../errors.js';

/**
 * POST /_mock/workloads/{id}/rl-events: application-reported events, taken in as the runner takes
 * them from a workload's stdout (the real service has no such endpoint: its workloads print one
 * `nodus.rl_event` line per event). Each event stands or falls on its own.
 */

type Result = z.infer<typeof IngestEventsResult>;
type Rejection = Result['rejected'][number];

/** One reported event before validation: a JSON value, or why its line held none. */
interface Candidate {
  index: number;
  /** 1-based line of a text body. */
  line?: number;
  value?: unknown;
  unparsable?: string;
}

interface TextBody {
  lines: string[];
  candidates: Candidate[];
}

/**
 * Every line of a text body, and its `nodus.rl_event {json}` lines as candidates. A line is
 * decoded as a runner decodes it (JSON.parse: a repeated key keeps its last value); an object
 * with a `__proto__` key gets it as an own key, which RLEvent then refuses as unknown.
 */
function textCandidates(text: string): TextBody {
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const candidates: Candidate[] = [];
  lines.forEach((line, i) => {
    if (!line.startsWith(RL_EVENT_PREFIX)) return;
    const candidate: Candidate = { index: candidates.length, line: i + 1 };
    try {
      candidate.value = JSON.parse(line.slice(RL_EVENT_PREFIX.length));
    } catch (err) {
      candidate.unparsable = `not valid JSON after the prefix: ${(err as Error).message}`;
    }
    candidates.push(candidate);
  });
  return { lines, candidates };
}

const jsonCandidates = (events: readonly unknown[]): Candidate[] => events.map((value, index) => ({ index, value }));

interface IngestTarget {
  stageId: string;
  generation: number;
  nowMs: number;
  /** A text body's lines, logged as given; without them each RLEvent is logged as the emitter prints it. */
  stdout?: readonly string[];
}

const whereOf = (c: Candidate) => (c.line === undefined ? `events.${c.index}` : `line ${c.line}`);

interface ZodIssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

const validationMessage = (where: string, issues: readonly ZodIssueLike[]) =>
  describeValidation(
    where,
    issues.map((i) => ({ keyword: i.code, instancePath: `/${i.path.join('/')}`, message: i.message, params: { keys: i.keys } })),
  ).message;

const APPEND_REFUSALS = {
  changed: ['event_id_conflict', 'an event with this event_id and other content is already stored in this stage and generation'],
  clash: ['identity_conflict', 'this phase, task_id, attempt and kind are already stored under another event_id in this stage and generation'],
} as const;

/**
 * Validates each candidate (JSON, the RLEvent schema, the workload's mode), appends the valid
 * ones in order through the store's identity rules and bounds, and logs what the workload
 * printed. Call inside the request's write transaction.
 */
function ingestEvents(deps: DomainContext, unit: TenantUnit, row: WorkloadRow, candidates: readonly Candidate[], target: IngestTarget): Result {
  const mode = (JSON.parse(row.payload) as { rl?: { mode?: string } | null }).rl?.mode;
  const rejected: Rejection[] = [];
  const valid: Array<{ candidate: Candidate; input: RLEventInput }> = [];
  const reject = (c: Candidate, error: Rejection['error'], message: string) =>
    rejected.push({ index: c.index, ...(c.line !== undefined && { line: c.line }), error, message });
  const lines: LogInput[] = [];
  const log = (line: string) => lines.push({ stageId: target.stageId, generation: target.generation, atMs: target.nowMs, line });

  for (const line of target.stdout ?? []) log(line);
  for (const c of candidates) {
    const where = whereOf(c);
    if (c.unparsable !== undefined) {
      reject(c, 'invalid_json', `${where}: ${c.unparsable}`);
      continue;
    }
    const parsed = RLEvent.safeParse(c.value);
    if (!parsed.success) {
      reject(c, 'invalid_event', validationMessage(where, parsed.error.issues));
      continue;
    }
    if (!target.stdout) log(rlEventLine(parsed.data));
    if (mode === 'evaluate' && parsed.data.phase === 'training') {
      reject(c, 'phase_not_allowed', `${where}.phase: an evaluate-mode workload cannot record training-phase events`);
      continue;
    }
    valid.push({ candidate: c, input: rlEventInput(target.stageId, target.generation, target.nowMs, parsed.data) });
  }

  unit.tables.runtime.appendLogs(row.id, lines, deps.config.maxLogBytesPerAttempt);
  const outcomes = unit.tables.rlEvents.append(row.id, valid.map((v) => v.input), deps.materialiser.bounds());
  const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
  outcomes.forEach((outcome, i) => {
    if (outcome !== 'changed' && outcome !== 'clash') return;
    const c = valid[i].candidate;
    const [error, message] = APPEND_REFUSALS[outcome];
    reject(c, error, `${whereOf(c)}: ${message}`);
  });

  const counters = unit.tables.rlEvents.counters(row.id);
  return {
    workload_id: row.id,
    stage_id: target.stageId,
    generation: target.generation,
    accepted: count('stored'),
    duplicates: count('duplicate'),
    dropped: count('dropped'),
    rejected: rejected.sort((a, b) => a.index - b.index),
    dropped_events: counters.dropped,
    truncated: counters.truncated,
  };
}

export type IngestJson = z.infer<typeof IngestEventsRequest>;
export type IngestQuery = z.output<typeof IngestEventsQuery>;

/** The events of either body, with a text body's lines to log as the workload's output. */
interface IngestBody {
  candidates: Candidate[];
  stdout?: string[];
  stage_id?: string;
  generation?: number;
}

/** Reads a JSON or text body into its candidates; without one, 400. */
export function ingestBody(body: IngestJson | string | undefined): IngestBody {
  // Fastify checks a body per media type only when one is named: a bare POST arrives here unchecked.
  if (body === undefined) throw invalidRequest('body: send {"events": [...]} as application/json, or event lines as text/plain');
  if (typeof body !== 'string') return { stage_id: body.stage_id, generation: body.generation, candidates: jsonCandidates(body.events) };
  const { lines, candidates } = textCandidates(body);
  return { candidates, stdout: lines };
}

/** One value from the body or the query string, never both. */
function eitherOf<T>(name: string, fromBody: T | undefined, fromQuery: T | undefined): T | undefined {
  if (fromBody !== undefined && fromQuery !== undefined) throw invalidRequest(`${name}: give it in the body or in the query string, not both`);
  return fromBody ?? fromQuery;
}

const stageIds = (row: WorkloadRow, spec: SimSpec) =>
  new Set([spec.stageId, ...((JSON.parse(row.payload) as { stages?: Array<{ id: string }> | null }).stages ?? []).map((s) => s.id)]);

/**
 * POST /_mock/workloads/{id}/rl-events on a custom run: the events go to the stage and
 * generation the body or the query names (default its first stage, its current generation).
 * A recipe run's events are the simulator's, so it takes none. Call inside the workload's
 * transaction.
 */
export function ingestReported(deps: DomainContext, unit: TenantUnit, row: WorkloadRow, body: IngestBody, query: IngestQuery): Result {
  if (row.kind === 'recipe') {
    throw conflict('recipe_run', `workload ${row.id} is a managed recipe run: its task events come from the simulated runtime. Ingest into a workload submitted with POST /v1/workloads`);
  }
  const { spec } = deps.materialiser.context(row);
  const stages = stageIds(row, spec);
  const stageId = eitherOf('stage_id', body.stage_id, query.stage_id) ?? spec.stageId;
  if (!stages.has(stageId)) throw new DomainError('invalid', 'invalid_stage', `stage_id: workload ${row.id} has no stage "${stageId}" (stages: ${[...stages].join(', ')})`);
  const generation = eitherOf('generation', body.generation, query.generation) ?? row.generation;
  if (generation > row.generation) {
    throw new DomainError('invalid', 'invalid_generation', `generation: workload ${row.id} is in generation ${row.generation}; events can come from generations 1 to ${row.generation}`);
  }
  return ingestEvents(deps, unit, row, body.candidates, { stageId, generation, nowMs: deps.clock.nowMs(row.tenantId), stdout: body.stdout });
}
