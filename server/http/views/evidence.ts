import { RLEventPage, RLEventRow as WireRow } from '../../../openapi/rl-evidence.js';
import type { LiveLogPage } from '../../../openapi/workloads.js';
import type { RLEventRow } from '../../../store/rl-events.js';
import { isoTime } from '../../domain/clock.js';
import type { EventPage, LogLinePage } from '../../domain/evidence/service.js';
import { objectJson } from '../encoded.js';

/**
 * One RLEventRow, its `event` spliced in as stored: every stored event was checked against
 * RLEvent when it was written (ingest, materialiser) and is kept as its canonical JSON.
 */
const rowJson = objectJson<typeof WireRow, RLEventRow>(WireRow, {
  id: (r) => `"${r.seq}"`,
  stage_id: (r) => JSON.stringify(r.stageId),
  generation: (r) => String(r.generation),
  received_at: (r) => `"${isoTime(r.receivedAtMs)}"`,
  event: (r) => r.event,
});

/**
 * GET /v1/workloads/{id}/rl-events as JSON text, RLEventPage's keys in its own order, as its
 * serializer would write them. Parsing 100 stored events and encoding them again through
 * RLEventPage was most of a page's CPU and of the heap that concurrent reads grow (bench/,
 * rl-events and memory profiles); test/contract/rl-events-encoded.test.ts holds this text to
 * the schema.
 */
export const rlEventPageJson = objectJson<typeof RLEventPage, EventPage>(RLEventPage, {
  schema_version: () => '1',
  events: ({ events }) => `[${events.map(rowJson).join(',')}]`,
  next_cursor: ({ nextCursor }) => JSON.stringify(nextCursor),
  has_more: ({ hasMore }) => String(hasMore),
  dropped_events: ({ counters }) => String(counters.dropped),
  truncated: ({ counters }) => String(counters.truncated),
});

/** GET /v1/workloads/{id}/logs/live: one chunk per line. */
export function liveLogPageView({ lines, nextCursor, truncated }: LogLinePage): LiveLogPage {
  return {
    chunks: lines.map((r) => ({ id: r.seq, stage_id: r.stageId, generation: r.generation, text: `${r.line}\n` })),
    next_cursor: nextCursor,
    truncated,
  };
}
