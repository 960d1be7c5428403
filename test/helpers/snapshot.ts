/**
 * A journal as a document older than version 4 holds it: /v1 requests only (the tenant's own
 * /_mock calls were not journaled), without the columns version 4 added.
 */
export function journalBeforeVersion4(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.filter((r) => r.kind === 'api').map(({ kind: _kind, headers: _headers, headers_truncated: _truncated, ...row }) => row);
}
