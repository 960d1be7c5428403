import type { z } from 'zod';
import type { JournalEntry } from '../../../openapi/mock.js';
import type { JournalRow } from '../../../store/journal.js';
import { isoTime } from '../../domain/clock.js';
import { nestsTooDeep } from '../../domain/json-depth.js';
import { JOURNAL_BODY_LIMIT_BYTES } from '../journal.js';

function presentBody(row: JournalRow): unknown {
  if (row.body === null) return null;
  if (row.bodyTruncated) return `${row.body}…[cut at ${JOURNAL_BODY_LIMIT_BYTES} bytes of ${row.bodyBytes}]`;
  // Refused as too deep, it is shown as the text it was: as a value it could not be serialised.
  if (!row.bodyJson || nestsTooDeep(row.body)) return row.body;
  try {
    return JSON.parse(row.body);
  } catch {
    return row.body; // sent as JSON but not JSON: show exactly what came
  }
}

function presentQuery(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(query)) {
    const seen = out[name];
    out[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return out;
}

export function presentJournalRow(row: JournalRow): z.infer<typeof JournalEntry> {
  return {
    id: row.id,
    at: isoTime(row.atMs),
    wall_at: isoTime(row.wallMs),
    method: row.method,
    path: row.path,
    query: presentQuery(row.query),
    status: row.status,
    request_id: row.requestId,
    idempotency_key: row.idempotencyKey,
    replayed: row.replayed,
    fault: row.fault as z.infer<typeof JournalEntry>['fault'],
    fault_id: row.faultId,
    body: presentBody(row),
    body_bytes: row.bodyBytes,
    body_truncated: row.bodyTruncated,
    duration_ms: row.durationMs,
  };
}

