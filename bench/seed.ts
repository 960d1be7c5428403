import { join } from 'node:path';
import Database from 'better-sqlite3';
import { canonicalJson } from '../server/domain/json-text.js';
import { mintCursor } from '../server/domain/evidence/cursors.js';
import { CURSOR_SECRET, cursorSecret } from '../server/domain/signed-cursors.js';
import { rlEventId } from '../server/simulator/event-ids.js';
import { openStore } from '../store/index.js';
import { MAIN, mockArgs, startChild } from './children.js';
import { advance, benchKey, get, launch, review } from './mock-api.js';

/** Rows per page in the depth and memory figures (the route's default limit). */
export const PAGE = 100;

export interface DeepWorkload {
  db: string;
  key: string;
  workloadId: string;
  /** RL event rows the workload holds. */
  rows: number;
  /** The depth the deep page starts at: this many rows come before it. */
  depth: number;
  /** The cursor that pages from `depth` rows in (0: the first page). */
  cursorAt(depth: number): string;
}

/**
 * Stores workload `id`'s row again `copies` times in the database file, in one transaction, under
 * ids of its own shape, the spec naming each its own (as a restore checks): each copy makes real
 * rows of its own when the mock materialises it. The mock may be running on the file meanwhile.
 */
export function storeAgain(db: string, id: string, copies: number): void {
  const sqlite = new Database(db);
  try {
    sqlite.pragma('busy_timeout = 5000');
    const columns = (sqlite.pragma('table_info(workloads)') as { name: string }[]).map((c) => c.name).filter((c) => c !== 'id');
    const values = columns.map((c) => (c === 'spec' ? 'replace(spec, @from, @to)' : c));
    const copy = sqlite.prepare(`INSERT INTO workloads (id, ${columns.join(', ')}) SELECT @to, ${values.join(', ')} FROM workloads WHERE id = @from`);
    sqlite.transaction(() => {
      for (let i = 1; i <= copies; i++) copy.run({ to: `${id.slice(0, -6)}${i.toString(36).padStart(6, '0')}`, from: id });
    })();
  } finally {
    sqlite.close();
  }
}

/** Rows per transaction: big enough that commits cost nothing, small enough to keep memory flat. */
const BATCH = 100_000;

/**
 * A database whose one workload holds `depth` + 2 pages of RL events, so that the page at depth
 * `depth` is full and has more after it. The workload is a real one (launched, run to completion
 * through the API, so it is settled and no read materialises anything); the bulk rows are then
 * inserted straight into its table with better-sqlite3, in big transactions, with the server
 * stopped.
 */
export async function seedDeepWorkload(dir: string, depth: number, log: (m: string) => void): Promise<DeepWorkload> {
  const db = join(dir, 'deep.db');
  const key = benchKey();
  const mock = await startChild(MAIN, mockArgs(db, '--clock', 'manual'));
  let workloadId: string;
  try {
    const reviewed = await review(mock.url, key, { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'evaluate', evaluation_tasks: 4 });
    workloadId = await launch(mock.url, key, reviewed, 'deep');
    await advance(mock.url, key, reviewed.secondsToFinish);
    // One page read through the API, as a client reads it, before rows are added under it.
    await get(mock.url, key, `/v1/workloads/${workloadId}/rl-events?limit=1`);
  } finally {
    await mock.stop();
  }

  const sqlite = new Database(db);
  try {
    // A fixture, not a measurement: nothing here needs to survive a power cut.
    sqlite.pragma('synchronous = OFF');
    const { settled, receivedAtMs } = sqlite
      .prepare('SELECT settled, updated_at_ms AS receivedAtMs FROM workloads WHERE id = ?')
      .get(workloadId) as { settled: number; receivedAtMs: number };
    if (settled !== 1) throw new Error(`the seeded workload ${workloadId} did not settle`);
    const simulated = (sqlite.prepare('SELECT count(*) AS n FROM rl_events WHERE workload_id = ?').get(workloadId) as { n: number }).n;
    const seeded = Math.max(0, depth + 2 * PAGE - simulated);

    const insert = sqlite.prepare(
      `INSERT INTO rl_events (seq, workload_id, stage_id, generation, received_at_ms, event_id, phase, task_id, attempt, kind, event)
       VALUES (?, ?, 'main', 1, ?, ?, 'evaluation', ?, ?, ?, ?)`,
    );
    let bytes = 0;
    // Started/completed pairs for attempts 1–8 of distinct tasks: the shape simulated runs store.
    const batch = sqlite.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const pair = i >> 1;
        const taskId = `leg_counting/seeded/${(pair >> 3).toString().padStart(7, '0')}`;
        const attempt = (pair & 7) + 1;
        const kind = i & 1 ? 'task_completed' : 'task_started';
        const event = {
          event_id: rlEventId(workloadId, taskId, attempt, 'evaluation', kind),
          phase: 'evaluation',
          task_id: taskId,
          attempt,
          kind,
          ...(kind === 'task_completed' ? { outcome: 'passed', reward: 1, duration_ms: 4000 + (i % 4000) } : {}),
        };
        const text = canonicalJson(event);
        bytes += Buffer.byteLength(text);
        insert.run(simulated + i + 1, workloadId, receivedAtMs + i, event.event_id, taskId, attempt, kind, text);
      }
    });
    const started = performance.now();
    for (let from = 0; from < seeded; from += BATCH) {
      batch(from, Math.min(seeded, from + BATCH));
      log(`seeded ${Math.min(seeded, from + BATCH).toLocaleString('en')} of ${seeded.toLocaleString('en')} rows`);
    }
    sqlite
      .prepare('UPDATE workloads SET rl_event_count = rl_event_count + ?, rl_event_bytes = rl_event_bytes + ? WHERE id = ?')
      .run(seeded, bytes, workloadId);
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    log(`seeded ${seeded.toLocaleString('en')} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // Cursors are signed with a key derived from the workload's tenant's, as the server mints them.
    const tenantId = sqlite.prepare('SELECT tenant_id FROM workloads WHERE id = ?').pluck().get(workloadId) as string;
    const store = openStore(db);
    let secret: Buffer;
    try {
      secret = cursorSecret(store, tenantId, CURSOR_SECRET);
    } finally {
      store.close();
    }
    const seqs = sqlite.prepare('SELECT seq FROM rl_events WHERE workload_id = ? ORDER BY seq').pluck().all(workloadId) as number[];
    return {
      db,
      key,
      workloadId,
      rows: seqs.length,
      depth,
      // A cursor names the last row already seen; depth 0 is the position before the first row.
      cursorAt: (d) => mintCursor(secret, workloadId, d === 0 ? 0 : seqs[d - 1]),
    };
  } finally {
    sqlite.close();
  }
}
