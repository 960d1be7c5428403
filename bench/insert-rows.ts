// Materialise baseline, run as a child process like the server: a plain batched insert of the
// rows one clock advance wrote (from --rows, a RowDump) into a fresh database with the mock's own
// schema and pragmas, one transaction per workload, one prepared statement per table. The rows
// go in COPIES times as new workloads, as the server's file also fills up round after round (and
// so meets WAL checkpoints); the first copy only warms up. Prints {"rows", "ms"}: the median
// transaction of the others.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { openDatabase } from '../store/db.js';
import { insertInto, rowCount, type RowDump } from './materialised-rows.js';
import { median } from './rounds.js';

const COPIES = 6;

const { values } = parseArgs({ options: { rows: { type: 'string' }, db: { type: 'string' } } });
const dump = JSON.parse(readFileSync(values.rows!, 'utf8')) as RowDump;

const db = openDatabase(values.db!);
insertInto(db, 'tenants', dump.tenant).run(dump.tenant);
const workload = insertInto(db, 'workloads', dump.workload);
const plans = dump.gradingPlans.map((plan) => ({ plan, statement: insertInto(db, 'grading_plans', plan) }));
const tables = dump.tables.filter((t) => t.rows.length).map((t) => ({ statement: insertInto(db, t.table, t.rows[0]), rows: t.rows }));
const write = db.transaction((workloadId: string) => {
  for (const { statement, rows } of tables) for (const row of rows) statement.run({ ...row, workload_id: workloadId });
});

const times: number[] = [];
for (let copy = 0; copy < COPIES; copy++) {
  const workloadId = `${dump.workload.id}_${copy}`;
  workload.run({ ...dump.workload, id: workloadId });
  for (const { plan, statement } of plans) statement.run({ ...plan, workload_id: workloadId });
  const started = performance.now();
  write.immediate(workloadId);
  if (copy > 0) times.push(performance.now() - started);
}
db.close();
process.stdout.write(`${JSON.stringify({ rows: rowCount(dump), ms: median(times) })}\n`);
