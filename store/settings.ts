import { randomBytes } from 'node:crypto';
import type { Db } from './db.js';

/**
 * The server's own secrets: review tokens, RL event cursors and log cursors are each keyed by one,
 * so one kind of token is never accepted as another. Names as stored in server_settings.
 */
export const SECRET_NAMES = ['review-token', 'cursor', 'log-cursor'] as const;
export type SecretName = (typeof SECRET_NAMES)[number];

/**
 * Server-wide values that must survive restarts. Every secret is created (once, ever) or loaded
 * when the store opens, in one transaction of its own: afterwards they never change, so hot routes
 * read them from memory, inside a transaction or not, and none is created by a request.
 */
export function createSettingsStore(db: Db) {
  const get = db.prepare<[string], { value: string }>('SELECT value FROM server_settings WHERE name = ?');
  const insert = db.prepare('INSERT OR IGNORE INTO server_settings (name, value) VALUES (?, ?)');
  const secrets = db.transaction(() => new Map(SECRET_NAMES.map((name) => {
    insert.run(name, randomBytes(32).toString('hex'));
    return [name, Buffer.from(get.get(name)!.value, 'hex')];
  })))();
  return {
    /** The named 32-byte secret, as kept in the database. */
    secret(name: SecretName): Buffer {
      return secrets.get(name)!;
    },
  };
}
