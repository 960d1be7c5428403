import { randomBytes } from 'node:crypto';
import type { Db } from './db.js';

/** Server-wide values that must survive restarts, such as the review-token secret. */
export function createSettingsStore(db: Db) {
  const get = db.prepare<[string], { value: string }>('SELECT value FROM server_settings WHERE name = ?');
  const insert = db.prepare('INSERT OR IGNORE INTO server_settings (name, value) VALUES (?, ?)');
  // A secret never changes once committed, so hot routes need not read it per request. Inside a
  // transaction the row may be one this transaction just inserted and may yet roll back: only a
  // value read outside any transaction is known to be committed, and only that one is cached.
  const committed = new Map<string, Buffer>();
  return {
    /** The named 32-byte secret, created on first use and kept in the database. */
    secret(name: string): Buffer {
      const cached = committed.get(name);
      if (cached) return cached;
      insert.run(name, randomBytes(32).toString('hex'));
      const value = Buffer.from(get.get(name)!.value, 'hex');
      if (!db.inTransaction) committed.set(name, value);
      return value;
    },
  };
}
