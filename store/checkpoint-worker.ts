// The WAL checkpointer's thread (store/transactions.ts): its own connection to the server's file,
// copying committed WAL pages into the database whenever the server's thread asks.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database((workerData as { path: string }).path);
db.pragma('synchronous = NORMAL');
// PASSIVE never waits for the server's writes or blocks them; pages committed meanwhile are
// copied next time. A failure (disk full, a file being replaced) leaves the pages in the WAL, where
// the server's own automatic checkpoint still copies them.
parentPort!.on('message', () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // The server's own checkpoint is the fallback; this thread must not die on a busy file.
  }
});
