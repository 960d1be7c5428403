import { Worker } from 'node:worker_threads';

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
