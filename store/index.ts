import { createAdmissionStore } from './admission.js';
import { createAssetStore } from './assets.js';
import { createCheckpointer } from './checkpointer.js';
import { createComputeStore } from './compute.js';
import { createConnectionStore } from './connections.js';
import { makeFolder, openDatabase, type Db } from './db.js';
import { createFaultStore } from './faults.js';
import { createWorkloadRuleStore } from './workload-rules.js';
import { createGradingStore } from './grading.js';
import { createIdempotencyStore } from './idempotency.js';
import { createJournalStore } from './journal.js';
import { createLeverStore } from './levers.js';
import { lockDatabase } from './lock.js';
import { createResetStore } from './reset.js';
import { createRLEventStore } from './rl-events.js';
import { createScenarioStateStore } from './scenario-state.js';
import { createSecretStore } from './secrets.js';
import { createSettingsStore } from './settings.js';
import { createSnapshotStore } from './snapshot.js';
import { createTenantStore } from './tenants.js';
import { createWorkloadRuntimeStore } from './workload-runtime.js';
import { createTenantCache } from './tenant-cache.js';
import { createWebhookStore } from './webhooks.js';
import { createWorkloadStore } from './workloads.js';

export type Store = ReturnType<typeof createStore>;

interface QueuedWrite {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

/**
 * Work that rides along every group commit, after its writes. It may answer how to put back what
 * it took: called when the group's transaction fails, so nothing it wrote is lost with the rollback.
 */
export type Rider = () => (() => void) | void;

function createStore(db: Db, unlock: () => void) {
  // One transaction function for every write: better-sqlite3 builds four wrappers and defines
  // their properties each time db.transaction() is called, which showed in request profiles.
  // Called inside a transaction, it runs fn in a SAVEPOINT that a throw rolls back alone.
  const inTransaction = db.transaction(<T>(fn: () => T): T => fn());
  const cache = createTenantCache(db);
  const probe = db.prepare('SELECT 1');
  const checkpointer = db.memory ? undefined : createCheckpointer(db.name);

  let queued: QueuedWrite[] = [];
  const riders: Rider[] = [];
  const commitQueued = () => {
    const writes = queued;
    queued = [];
    const outcomes: Outcome[] = [];
    const putBack: (() => void)[] = [];
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
        for (const ride of riders) {
          const back = ride();
          if (back) putBack.push(back);
        }
      });
    } catch {
      for (const back of putBack) back();
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
    db,
    settings: createSettingsStore(db),
    tenants: createTenantStore(db, cache),
    idempotency: createIdempotencyStore(db, cache),
    workloads: createWorkloadStore(db),
    admission: createAdmissionStore(db, cache),
    runtime: createWorkloadRuntimeStore(db),
    rlEvents: createRLEventStore(db),
    grading: createGradingStore(db),
    assets: createAssetStore(db),
    faults: createFaultStore(db, cache),
    workloadRules: createWorkloadRuleStore(db, cache),
    levers: createLeverStore(db, cache),
    journal: createJournalStore(db),
    scenarios: createScenarioStateStore(db),
    reset: createResetStore(db),
    webhooks: createWebhookStore(db),
    secrets: createSecretStore(db),
    connections: createConnectionStore(db),
    compute: createComputeStore(db),
    snapshot: createSnapshotStore(db),
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
    /** fn runs inside every group commit, after the queued writes; it must handle its own errors. */
    onGroupCommit(fn: Rider): void {
      riders.push(fn);
    },
    /**
     * Asks the checkpointer's thread to copy the WAL into the database now, after a commit of many
     * pages (a restore): otherwise a later commit past wal_autocheckpoint copies them on the event loop.
     */
    checkpointSoon(): void {
      checkpointer?.request();
    },
    /** The readiness probe: throws when the database does not answer. */
    ping(): void {
      probe.get();
    },
    close(): void {
      void checkpointer?.close();
      if (db.open) db.close();
      unlock();
    },
  };
}

/**
 * Opens the database. A server opens it with `lock`, holding the file's lock (store/lock.ts) until
 * close; a reader beside it (a test's second connection) does not. `:memory:` is one process's alone.
 * A file that does not exist yet starts as a copy of `template` (store/db.ts).
 */
export function openStore(path: string, { lock = false, template }: { lock?: boolean; template?: string } = {}): Store {
  let unlock: () => void = () => undefined;
  if (lock && path !== ':memory:') {
    makeFolder(path);
    unlock = lockDatabase(path);
  }
  try {
    return createStore(openDatabase(path, template), unlock);
  } catch (err) {
    unlock();
    throw err;
  }
}
