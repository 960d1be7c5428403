import t from '../../helpers/tap.js';
import { snapshotColumns, SNAPSHOT_VERSION, SnapshotTenant } from '../../../openapi/snapshot.js';
import { DomainError } from '../../../server/domain/errors.js';
import { readSnapshot } from '../../../server/domain/snapshots/reader.js';

/** Log lines that put quotes, backslashes and characters of 2 to 4 bytes wherever a piece may end. */
const LINES = ['plain', 'a "quoted" word', 'a backslash \\', '\\"', '\\\\"', 'é ü ∑ 😀 ', '{"json": [1, 2]}', ':,{}[]', ''];

/** A document whose only rows are log lines: LINES, or the text `rows` between the table's brackets. */
function document(rows?: string): string {
  const tables = Object.fromEntries(Object.keys(SnapshotTenant.shape.tables.shape).map((table) => [table, []])) as Record<string, unknown>;
  tables.workload_logs = rows === undefined ? LINES.map((line, i) => ({ seq: i + 1, workload_id: 'wl_x', stage_id: 'main', generation: 1, at_ms: i, line })) : 'ROWS';
  const doc = {
    format: 'nodus-mock.snapshot', version: SNAPSHOT_VERSION, created_at: '2026-12-01T00:00:00.000Z', mock_version: 'test',
    tenant: { clock: { mode: 'manual', scale: 60, now_ms: 10 }, id: null, cursor_key: null, tables },
  };
  // Whitespace between the tokens, where JSON allows it.
  return JSON.stringify(doc, null, '\t').replace(/\n/g, '\r\n').replace('"ROWS"', () => `[${rows}]`);
}

/** The bytes in pieces of `size`, so every boundary falls once inside a string, an escape or a character. */
function* pieces(bytes: Buffer, size: number): Generator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function read(bytes: Buffer, size: number) {
  const spooled = await readSnapshot(pieces(bytes, size), 'body');
  try {
    return { head: spooled.head, logs: [...spooled.rows('workload_logs')] };
  } finally {
    spooled.remove();
  }
}

async function refusal(text: string, size = text.length) {
  try {
    await read(Buffer.from(text), size);
  } catch (err) {
    if (err instanceof DomainError) return err.message;
    throw err;
  }
  return undefined;
}

t.test('the rows are the same however the bytes are cut', async (t) => {
  const bytes = Buffer.from(document());
  const whole = await read(bytes, bytes.length);
  t.same(whole.logs.map((row) => row[snapshotColumns().workload_logs.indexOf('line')]), LINES);
  t.same(whole.head.tenant.clock, { mode: 'manual', scale: 60, now_ms: 10 });
  for (const size of [1, 2, 3, 5, 7, 64, 1000]) t.same(await read(bytes, size), whole, `pieces of ${size} bytes`);
});

t.test('a row that is not a flat object of known columns is refused at its first problem, cut anywhere', async (t) => {
  const row = '{"seq":1,"workload_id":"wl_x","stage_id":"main","generation":1,"at_ms":0,"line":"x"}';
  const cases: [string, string][] = [
    [row.replace('"seq":1', '"seq":1,"seq":2'), 'duplicate key at body.tenant.tables.workload_logs.0.seq'],
    [row.replace('"seq":1', '"__proto__":1'), 'key "__proto__" is not allowed (at body.tenant.tables.workload_logs.0.__proto__)'],
    [row.replace('"line":"x"', '"line":{"a":1}'), 'body.tenant.tables.workload_logs.0.line: Invalid input: expected a string, number, boolean or null, received object'],
    [row.replace('"line":"x"', '"line":["a"]'), 'body.tenant.tables.workload_logs.0.line: Invalid input: expected a string, number, boolean or null, received array'],
    [row.replace('"line":"x"', '"line":"x",'), 'request body is not valid JSON: unexpected "}"'],
    [row.replace('"line":"x"', '"line":"x"]'), 'request body is not valid JSON: unexpected "]"'],
    [row.replace('"seq":1', '"seq":01'), 'request body is not valid JSON: "01" is not a number at character'],
    [row.replace('"line":"x"', '"line":"\\x"'), 'request body is not valid JSON: a string with a bad escape or control character at character'],
    [row.replace('"seq":1', '"seq":one'), 'request body is not valid JSON: unexpected "one" at character'],
    [row.replace('"seq":1', '"seq":"one"'), 'body.tenant.tables.workload_logs.0.seq: '],
    [`${row},[]`, 'body.tenant.tables.workload_logs.1: Invalid input: expected object, received array'],
    [`${row},7`, 'body.tenant.tables.workload_logs.1: '],
  ];
  for (const [rows, message] of cases) {
    const text = document(rows);
    for (const size of [text.length, 1, 3]) {
      const got = await refusal(text, size);
      t.ok(got?.startsWith(message), `${rows} in pieces of ${size}: ${got}`);
    }
  }
  t.ok(await read(Buffer.from(document(row)), 5), 'the row itself restores');
  t.match(await refusal(document().slice(0, 400)), /^request body is not valid JSON: it ends before the document does/, 'cut inside a row');
});
