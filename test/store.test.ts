import t from 'tap';
import Database from 'better-sqlite3';
import { openDatabase, schemaVersion } from '../store/db.js';
import { MIGRATIONS } from '../store/migrations/index.js';
import { openStore } from '../store/index.js';
import { tempDbPath } from './helpers/server.js';

t.test('pragmas and recorded migrations', async (t) => {
  const path = tempDbPath(t);
  const db = openDatabase(path);
  t.teardown(() => db.close());
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  t.equal(db.pragma('synchronous', { simple: true }), 1, 'NORMAL');
  t.equal(db.pragma('foreign_keys', { simple: true }), 1);
  t.ok((db.pragma('busy_timeout', { simple: true }) as number) >= 1000);
  const rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
  t.same(rows, MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  t.equal(schemaVersion(db), MIGRATIONS[MIGRATIONS.length - 1].version);
});

t.test('reopening applies nothing twice and keeps data', async (t) => {
  const path = tempDbPath(t);
  const first = openStore(path);
  const secret = first.settings.secret('review');
  first.close();
  const second = openStore(path);
  t.teardown(() => second.close());
  t.same(second.settings.secret('review'), secret, 'the secret survives a restart');
  t.equal((second.db.prepare('SELECT count(*) AS n FROM schema_migrations').get() as { n: number }).n, MIGRATIONS.length);
});

t.test('refuses a database from a newer schema', async (t) => {
  const path = tempDbPath(t);
  openDatabase(path).close();
  const raw = new Database(path);
  raw.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 'x')").run();
  raw.close();
  t.throws(() => openDatabase(path), { name: 'SchemaTooNewError' });
  t.throws(() => openDatabase(path), /newer than this server/);
});

t.test('creates the parent folder of the file', async (t) => {
  const path = tempDbPath(t).replace(/test\.db$/, 'deep/er/test.db');
  const db = openDatabase(path);
  db.close();
  t.pass('opened');
});
