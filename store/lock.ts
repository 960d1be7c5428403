import type Database from 'better-sqlite3';
import { connect } from './sqlite-addon.js';

/** Another live process serves this database file: a configuration mistake, like a bad flag. */
export class DatabaseInUseError extends Error {
  override name = 'DatabaseInUseError';
}

/** How long a second server waits for the holder before it gives up. */
const WAIT_MS = 1000;

const isBusy = (err: unknown) => (err as { code?: string }).code?.startsWith('SQLITE_BUSY') ?? false;

/** `PID 1234, since 2026-…`, as the holder wrote it, or less when it has written nothing yet. */
function describeHolder(lock: Database.Database): string {
  try {
    const row = lock.prepare('SELECT pid, started_at FROM holder').get() as { pid: number; started_at: string } | undefined;
    if (row) return `PID ${row.pid}, running since ${row.started_at}`;
  } catch {
    // The holder is between opening the file and writing its row.
  }
  return 'its PID not written yet';
}

/**
 * One server per database file: each keeps its tenants' clocks and rules cached, so a second one
 * on the same file would answer from a state the first changes behind it. The holder keeps a
 * write transaction open on `<db>.lock`, a SQLite file of its own, for as long as it runs. SQLite
 * locks with POSIX advisory locks, which the kernel drops when the process ends however it ends
 * (a clean stop, kill -9, a container killed), so a holder that is gone never blocks a start;
 * and connections of one process exclude each other as well. The holder writes its PID first, in
 * a transaction it commits, for a refused server to name. The server's own file cannot carry
 * this lock: an exclusive lock on it would shut out the checkpoint thread's connection.
 *
 * Answers the release, which closes the file and so ends the transaction.
 */
export function lockDatabase(path: string): () => void {
  const lockPath = `${path}.lock`;
  const lock = connect(lockPath);
  lock.pragma(`busy_timeout = ${WAIT_MS}`);
  // Only the lock matters, not the holder row's durability: no journal file and no fsync, which
  // cost a start about a millisecond for a row that is rewritten at every start.
  lock.pragma('journal_mode = MEMORY');
  lock.pragma('synchronous = OFF');
  const hold = () => {
    try {
      lock.exec('BEGIN IMMEDIATE');
    } catch (err) {
      if (!isBusy(err)) throw err;
      throw new DatabaseInUseError(
        `the database ${path} is in use by another nodus-mock process (${describeHolder(lock)}; lock file ${lockPath}): ` +
          'stop that one, or give this one another --db',
      );
    }
  };
  try {
    hold();
    lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, started_at TEXT NOT NULL)');
    lock.exec('DELETE FROM holder');
    lock.prepare('INSERT INTO holder (pid, started_at) VALUES (?, ?)').run(process.pid, new Date().toISOString());
    lock.exec('COMMIT');
    // Another start may take the file between this COMMIT and the next BEGIN: then it is the
    // holder, and this one is refused naming it.
    hold();
  } catch (err) {
    lock.close();
    throw err;
  }
  return () => {
    if (lock.open) lock.close();
  };
}
