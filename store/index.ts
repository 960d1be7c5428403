import { createAdmissionStore, createLeverStore } from './admission.js';
import { createAssetStore } from './assets.js';
import { createComputeStore } from './compute.js';
import { createConnectionStore } from './connections.js';
import { makeFolder, openDatabase, type Db } from './db.js';
import { createFaultStore } from './faults.js';
import { createWorkloadRuleStore } from './workload-rules.js';
import { createGradingStore } from './grading.js';
import { createIdempotencyStore } from './idempotency.js';
import { createJournalStore } from './journal.js';
import { lockDatabase } from './lock.js';
import { createResetStore } from './reset.js';
import { createRLEventStore } from './rl-events.js';
import { createScenarioStateStore } from './scenario-state.js';
import { createSecretStore } from './secrets.js';
import { createSettingsStore } from './settings.js';
import { createSnapshotStore } from './snapshot.js';
import { createTenantStore } from './tenants.js';
import { createWorkloadRuntimeStore } from './workload-runtime.js';
import { createTenantCache, createTenantSettings } from './tenant-cache.js';
import { createTransactions } from './transactions.js';
import { createWebhookStore } from './webhooks.js';
import { createWorkloadStore } from './workloads.js';

export type Store = ReturnType<typeof createStore>;

function createStore(db: Db, unlock: () => void) {
  const cache = createTenantCache(db);
  const probe = db.prepare('SELECT 1');
  const { close: stopTransactions, ...transactions } = createTransactions(db, cache);
  return {
    db,
    settings: createSettingsStore(db),
    tenants: createTenantStore(db),
    /** The tenant's settings every request reads, from memory while unchanged. */
    cached: createTenantSettings(db, cache),
    idempotency: createIdempotencyStore(db, cache),
    workloads: createWorkloadStore(db),
    admission: createAdmissionStore(db),
    runtime: createWorkloadRuntimeStore(db),
    rlEvents: createRLEventStore(db),
    grading: createGradingStore(db),
    assets: createAssetStore(db),
    faults: createFaultStore(db),
    workloadRules: createWorkloadRuleStore(db),
    levers: createLeverStore(db),
    journal: createJournalStore(db),
    scenarios: createScenarioStateStore(db),
    reset: createResetStore(db),
    webhooks: createWebhookStore(db),
    secrets: createSecretStore(db),
    connections: createConnectionStore(db),
    compute: createComputeStore(db),
    snapshot: createSnapshotStore(db),
    ...transactions,
    /** The readiness probe: throws when the database does not answer. */
    ping(): void {
      probe.get();
    },
    close(): void {
      stopTransactions();
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
