import type { z } from 'zod';
import type { JournalEntry, JournalMatchResult } from '../../../openapi/mock.js';
import type { JournalRow } from '../../../store/journal.js';
import { isoTime } from '../../domain/clock.js';
import { bodyValue, queryFields, type JournalMatches } from '../../domain/control/journal.js';
import { JOURNAL_BODY_LIMIT_BYTES } from '../journal.js';

function presentBody(row: JournalRow): unknown {
  if (row.body === null) return null;
  if (row.bodyTruncated) return `${row.body}…[cut at ${JOURNAL_BODY_LIMIT_BYTES} bytes of ${row.bodyBytes}]`;
  // Text, JSON that is not JSON, or JSON refused as too deep to be serialised: shown exactly as it came.
  const value = bodyValue(row);
  return value === undefined ? row.body : value;
}

export function presentJournalRow(row: JournalRow): z.infer<typeof JournalEntry> {
  return {
    id: row.id,
    kind: row.kind,
    at: isoTime(row.atMs),
    wall_at: isoTime(row.wallMs),
    method: row.method,
    path: row.path,
    query: queryFields(row.query),
    headers: row.headers,
    headers_truncated: row.headersTruncated,
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

export function presentJournalMatches(result: JournalMatches): z.infer<typeof JournalMatchResult> {
  return {
    matches: result.matches.map(presentJournalRow),
    count: result.count,
    evicted: result.evicted,
    nearest: result.nearest.map(({ row, differences }) => ({ request: presentJournalRow(row), differences })),
  };
}
