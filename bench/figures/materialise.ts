import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MAIN, benchScript, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import { readRows, rowCount } from '../materialised-rows.js';
import { advance, benchKey, launch, review } from '../mock-api.js';
import { alternate, figure } from '../rounds.js';

const run = promisify(execFile);

/** The biggest run the catalog allows: 50 GRPO steps, 64 held-out tasks, privately graded. */
const BIG_TRAIN_RUN = { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'train', evaluation_tasks: 64, training_steps: 50 };

/** Untimed advances first: the simulator's code takes about four runs to be optimised by V8. */
const WARM_UP_ADVANCES = 5;

/**
 * One clock advance materialising a whole run, in rows per second, against a plain insert of the
 * same rows. The subject is timed around the HTTP call (one request: its overhead is about a
 * millisecond of the tens the advance takes); each round is a new tenant and a new workload, so
 * the simulator's timeline cache never helps.
 */
export async function materialise(ctx: Context) {
  const db = join(ctx.dir, 'materialise.db');
  const mock = await startChild(MAIN, mockArgs(db, '--clock', 'manual'));
  try {
    let lastRows = 0;
    const advanceOnce = async () => {
      const key = benchKey();
      const reviewed = await review(mock.url, key, BIG_TRAIN_RUN);
      const id = await launch(mock.url, key, reviewed, 'materialise');
      const started = performance.now();
      await advance(mock.url, key, reviewed.secondsToFinish);
      const seconds = (performance.now() - started) / 1000;
      const dump = readRows(db, id);
      lastRows = rowCount(dump);
      return { dump, rowsPerSecond: lastRows / seconds };
    };

    // The untimed rounds warm the server up; the last one gives the rows the baseline inserts.
    let warm = await advanceOnce();
    for (let i = 1; i < WARM_UP_ADVANCES; i++) warm = await advanceOnce();
    const rowsFile = join(ctx.dir, 'materialised-rows.json');
    writeFileSync(rowsFile, JSON.stringify(warm.dump));
    let n = 0;
    const plainInsert = async () => {
      const { stdout } = await run(process.execPath, [benchScript('insert-rows.js'), '--rows', rowsFile, '--db', join(ctx.dir, `insert-${n++}.db`)]);
      const { rows, ms } = JSON.parse(stdout) as { rows: number; ms: number };
      return rows / (ms / 1000);
    };
    const r = await alternate(ctx.settings.shortRounds, { advance: async () => (await advanceOnce()).rowsPerSecond, insert: plainInsert });
    return [
      figure(
        { id: 'materialise', title: `Materialise a 50-step train run with 64 held-out tasks by one clock advance (${lastRows.toLocaleString('en')} rows)`, unit: 'rows/s', target: { op: '>=', ratio: 0.5 } },
        { label: 'POST /_mock/clock/advance', rounds: r.advance },
        { label: 'plain batched insert, same rows', rounds: r.insert },
        { rows: lastRows },
      ),
    ];
  } finally {
    await mock.stop();
  }
}
