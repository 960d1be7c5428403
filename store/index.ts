import { createAdmissionStore } from './admission.js';
import { openDatabase, type Db } from './db.js';
import { createFaultStore } from './faults.js';
import { createGradingStore } from './grading.js';
import { createIdempotencyStore } from './idempotency.js';
import { createJournalStore } from './journal.js';
import { createResetStore } from './reset.js';
import { createRLEventStore } from './rl-events.js';
import { createScenarioStateStore } from './scenario-state.js';
import { createSettingsStore } from './settings.js';
import { createTenantStore } from './tenants.js';
import { createWorkloadRuntimeStore } from './workload-runtime.js';
import { createTenantCache } from './tenant-cache.js';
import { createWorkloadStore } from './workloads.js';

export type Store = ReturnType<typeof createStore>;

function createStore(db: Db) {
  // One transaction function for every write: better-sqlite3 builds four wrappers and defines
  // their properties each time db.transaction() is called, which showed in request profiles.
  const inTransaction = db.transaction(<T>(fn: () => T): T => fn());
  const cache = createTenantCache(db);
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
    faults: createFaultStore(db, cache),
    journal: createJournalStore(db),
    scenarios: createScenarioStateStore(db),
    reset: createResetStore(db, cache),
    /** Runs fn in one IMMEDIATE transaction: one state change, one commit. */
    write<T>(fn: () => T): T {
      return inTransaction.immediate(fn) as T;
    },
    close(): void {
      if (db.open) db.close();
    },
  };
}

export function openStore(path: string): Store {
  return createStore(openDatabase(path));
}
