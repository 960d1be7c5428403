import type { SnapshotExport } from '../../domain/snapshots/service.js';

/**
 * The snapshot document's JSON text, piece by piece: the head, then each table's rows as they are
 * read. The text is the one JSON.stringify writes for the whole document (tables last, in the
 * reader's order; each row's columns in the database's order), so a streamed export and one held
 * whole are the same bytes.
 */
export function* snapshotJson(exported: SnapshotExport): Generator<string> {
  const head = JSON.stringify(exported.head);
  // The head ends with the tenant object, its last key; `tables` goes in after it, inside both.
  yield `${head.slice(0, -'}}'.length)},"tables":{`;
  let tables = 0;
  for (const [table, rows] of exported.tables()) {
    yield `${tables++ ? ',' : ''}${JSON.stringify(table)}:[`;
    let written = 0;
    for (const row of rows) yield `${written++ ? ',' : ''}${JSON.stringify(row)}`;
    yield ']';
  }
  yield '}}}';
}
