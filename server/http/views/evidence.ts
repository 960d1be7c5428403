import type { LiveLogPage } from '../../../openapi/workloads.js';
import type { RLEventRow } from '../../../store/rl-events.js';
import { isoTime } from '../../domain/clock.js';
import type { EventPage, LogLinePage } from '../../domain/evidence/service.js';

/**
 * One RLEventRow, its `event` spliced in as stored: every stored event was checked against
 * RLEvent when it was written (ingest, materialiser) and is kept as its canonical JSON.
 */
const rowJson = (r: RLEventRow) =>
  `{"id":"${r.seq}","stage_id":${JSON.stringify(r.stageId)},"generation":${r.generation},"received_at":"${isoTime(r.receivedAtMs)}","event":${r.event}}`;

/**
 * GET /v1/workloads/{id}/rl-events as JSON text, RLEventPage's keys in its own order, as its
 * serializer would write them. Parsing 100 stored events and encoding them again through
 * RLEventPage was most of a page's CPU and of the heap that concurrent reads grow (bench/,
 * rl-events and memory profiles); test/contract/rl-events-encoded.test.ts holds this text to
 * the schema.
 */
export function rlEventPageJson({ events, nextCursor, hasMore, counters }: EventPage): string {
  return (
    `{"schema_version":1,"events":[${events.map(rowJson).join(',')}],"next_cursor":${JSON.stringify(nextCursor)},` +
    `"has_more":${hasMore},"dropped_events":${counters.dropped},"truncated":${counters.truncated}}`
  );
}

/** GET /v1/workloads/{id}/logs/live: one chunk per line. */
export function liveLogPageView({ lines, nextCursor, truncated }: LogLinePage): LiveLogPage {
  return {
    chunks: lines.map((r) => ({ id: r.seq, stage_id: r.stageId, generation: r.generation, text: `${r.line}\n` })),
    next_cursor: nextCursor,
    truncated,
  };
}
