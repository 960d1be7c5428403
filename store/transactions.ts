import { Worker } from 'node:worker_threads';
import type { Db } from './db.js';
import type { TenantCache } from './tenant-cache.js';

/** Commits between two checkpoint requests: a few hundred launches, a WAL of a few MB. */
const COMMITS_PER_CHECKPOINT = 64;

/**
 * Checkpoints off the request path. A WAL checkpoint (copying committed pages into the database,
 * with two fsyncs) ran inside whichever commit crossed wal_autocheckpoint, stalling every request
 * of that turn for 20-50 ms (bench/, launch figure: its p99). A worker thread with its own
 * connection checkpoints every COMMITS_PER_CHECKPOINT commits instead, beside the event loop, so
 * the WAL stays far below that threshold. Durability is unchanged: a commit is in the WAL before
 * it is answered whether or not it was copied yet. The automatic checkpoint stays as the fallback
 * should the thread fall behind or fail. The thread starts at the first request for a checkpoint, so a
 * server that commits little (most tests, a cold start) never pays for one.
 */
export function createCheckpointer(path: string, script = new URL('./checkpoint-worker.js', import.meta.url)) {
  let worker: Worker | undefined;
  let commits = 0;
  let failed = false;
  const request = () => {
    if (failed) return;
    if (!worker) {
      try {
        worker = new Worker(script, { workerData: { path } });
      } catch {
        // Called after a commit, which must still be answered: without a thread (its file missing,
        // no resources for one), the automatic checkpoint does the work, as before there was one.
        failed = true;
        return;
      }
      // It must not hold the process open, and a failed thread leaves the automatic checkpoint.
      worker.unref();
      worker.on('error', () => undefined);
    }
    worker.postMessage(null);
  };
  return {
    /** Counts one commit; every COMMITS_PER_CHECKPOINT asks the thread for a checkpoint. */
    committed(): void {
      if (++commits % COMMITS_PER_CHECKPOINT === 0) request();
    },
    /** Asks the thread for a checkpoint at once: after one commit of many pages. */
    request,
    close(): Promise<number> | undefined {
      return worker?.terminate();
    },
  };
}

interface QueuedWrite {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

/**
 * How state changes reach the database: one IMMEDIATE transaction each (write), or committed
 * together with the others of an event-loop turn (writeTogether, the group commit); each commit
 * counted for the checkpointer's thread.
 */
export function createTransactions(db: Db, cache: TenantCache) {
  // One transaction function for every write: better-sqlite3 builds four wrappers and defines
  // their properties each time db.transaction() is called, which showed in request profiles.
  // Called inside a transaction, it runs fn in a SAVEPOINT that a throw rolls back alone.
  const inTransaction = db.transaction(<T>(fn: () => T): T => fn());
  const checkpointer = db.memory ? undefined : createCheckpointer(db.name);

  let queued: QueuedWrite[] = [];
  const commitQueued = () => {
    const writes = queued;
    queued = [];
    const outcomes: Outcome[] = [];
    cache.outsideTransaction();
    try {
      inTransaction.immediate(() => {
        for (const { fn } of writes) {
          try {
            outcomes.push({ ok: true, value: inTransaction(fn) });
          } catch (err) {
            outcomes.push({ ok: false, err });
          }
        }
      });
    } catch {
      // The commit itself failed, so none of these was stored: each gets a transaction of its own.
      for (const { fn, resolve, reject } of writes) {
        try {
          resolve(inTransaction.immediate(fn));
        } catch (err) {
          reject(err);
        }
      }
      return;
    }
    checkpointer?.committed();
    writes.forEach(({ resolve, reject }, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) resolve(outcome.value);
      else reject(outcome.err);
    });
  };
  return {
    /** Runs fn in one IMMEDIATE transaction: one state change, one commit. */
    write<T>(fn: () => T): T {
      if (!db.inTransaction) cache.outsideTransaction();
      const value = inTransaction.immediate(fn) as T;
      // Nested in another transaction, this was a SAVEPOINT: the outer commit is the one to count.
      if (!db.inTransaction) checkpointer?.committed();
      return value;
    },
    /**
     * One state change like write(), committed together with the others queued in this
     * event-loop turn (group commit): a launch's commit and its WAL pages were the largest part of
     * its cost (bench/). Each runs in a SAVEPOINT of the group's transaction, so a throw undoes
     * its own writes only; the promise settles after the COMMIT, so an answer built on it is
     * never sent for an uncommitted change.
     */
    writeTogether<T>(fn: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        if (queued.push({ fn, resolve: resolve as (value: unknown) => void, reject }) === 1) setImmediate(commitQueued);
      });
    },
    /**
     * Asks the checkpointer's thread to copy the WAL into the database now, after a commit of many
     * pages (a restore): otherwise a later commit past wal_autocheckpoint copies them on the event loop.
     */
    checkpointSoon(): void {
      checkpointer?.request();
    },
    /** Stops the checkpointer's thread. */
    close(): void {
      void checkpointer?.close();
    },
  };
}
