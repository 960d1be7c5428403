import { randomBytes } from 'node:crypto';
import type { Db } from './db.js';

/** Server-wide values that must survive restarts, such as the review-token secret. */
export function createSettingsStore(db: Db) {
  const get = db.prepare<[string], { value: string }>('SELECT value FROM server_settings WHERE name = ?');
  const insert = db.prepare('INSERT OR IGNORE INTO server_settings (name, value) VALUES (?, ?)');
  return {
    /** The named 32-byte secret, created on first use and kept in the database. */
    secret(name: string): Buffer {
      insert.run(name, randomBytes(32).toString('hex'));
      return Buffer.from(get.get(name)!.value, 'hex');
    },
  };
}
