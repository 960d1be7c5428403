import { openDatabase, type Db } from './db.js';
import { createSettingsStore } from './settings.js';
import { createTenantStore } from './tenants.js';

export type Store = ReturnType<typeof createStore>;

function createStore(db: Db) {
  return {
    db,
    settings: createSettingsStore(db),
    tenants: createTenantStore(db),
    /** Runs fn in one IMMEDIATE transaction: one state change, one commit. */
    write<T>(fn: () => T): T {
      return db.transaction(fn).immediate();
    },
    close(): void {
      if (db.open) db.close();
    },
  };
}

export function openStore(path: string): Store {
  return createStore(openDatabase(path));
}
