import { copyFileSync, existsSync, lstatSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { connect } from './sqlite-addon.js';
import { MIGRATIONS } from './migrations/index.js';

export type Db = Database.Database;

class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
}

/** The database's folder cannot be made: a configuration mistake, like a bad flag. */
export class DatabasePathError extends Error {
  override name = 'DatabasePathError';
}

/**
 * Makes the missing folders above `path` one level at a time. Node's recursive mkdir spins
 * forever under a folder that refuses new entries with ENOENT, such as /proc.
 */
export function makeFolder(path: string): void {
  const missing: string[] = [];
  for (let dir = dirname(path); !existsSync(dir) && dir !== dirname(dir); dir = dirname(dir)) missing.unshift(dir);
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (err) {
      throw new DatabasePathError(`cannot create ${dir} for the database ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
}

/**
 * A new database file starts as a copy of `template`, a database holding the schema and no rows
 * (the build writes dist/bundle/template.db with writeTemplate). Making the schema through the
 * migrations, each in a transaction of its own and many of them ALTER TABLEs, took 7-15 ms of a
 * fresh start when there were eleven; the copy takes about 1 ms. The migrations run after it as on any
 * file, so a version the template lacks is still applied. The copy is renamed into place, so a
 * start killed during it leaves no half-written database; a server holds the file's lock
 * (store/lock.ts) before it gets here, so two never copy at once. A leftover WAL without its
 * database is SQLite's to read, so that path is left to it.
 */
function startFromTemplate(path: string, template: string | undefined): void {
  if (!template || path === ':memory:' || !existsSync(template)) return;
  // lstat: a link at the path, even a dangling one, is the user's, and SQLite creates its target.
  if (lstatSync(path, { throwIfNoEntry: false }) || existsSync(`${path}-wal`)) return;
  const partial = `${path}.new`;
  copyFileSync(template, partial);
  renameSync(partial, path);
}

/** Writes the template of startFromTemplate: the current schema and no rows. */
export function writeTemplate(path: string): void {
  const db = openDatabase(':memory:');
  try {
    rmSync(path, { force: true });
    db.prepare('VACUUM INTO ?').run(path);
  } finally {
    db.close();
  }
}

/**
 * Opens the file with the pragmas the design fixes and brings its schema up to date; a file that
 * does not exist yet starts from `template` when one is given.
 */
export function openDatabase(path: string, template?: string): Db {
  if (path !== ':memory:') makeFolder(path);
  startFromTemplate(path, template);
  const db = connect(path);
  try {
    db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode loses nothing on a process crash (kill -9); only an OS crash could.
    db.pragma('synchronous = NORMAL');
    // A checkpoint runs inside whichever commit crosses this many WAL pages, with two fsyncs.
    // At SQLite's default of 1000 that was every ~100 launches and about half of a launch's
    // time under load (bench/); at 10000 (a WAL of up to 40 MB) the fsyncs are a tenth as
    // frequent, and pages rewritten often (indexes, the journal) are copied once per checkpoint.
    db.pragma('wal_autocheckpoint = 10000');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // better-sqlite3 raises SQLite's page cache to 16 MiB, and reading events at random depths
    // fills it: most of what a server holds after reading a big workload that is not V8's heap
    // (bench/, memory figure). The OS caches the file anyway; 4 MiB still holds the dirty pages
    // of materialising a whole run (about 1 MiB), so its transaction does not spill.
    db.pragma('cache_size = -4096');
    migrate(db);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

export function schemaVersion(db: Db): number {
  const row = db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

function migrate(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const current = schemaVersion(db);
  const latest = MIGRATIONS[MIGRATIONS.length - 1].version;
  if (current > latest) {
    throw new SchemaTooNewError(
      `database schema version ${current} is newer than this server understands (${latest}); ` +
        'use a newer nodus-mock or another --db file',
    );
  }
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  // Each missing version is applied, not only those above the highest: a database made by a build
  // that lacked one migration still gets it.
  for (const m of MIGRATIONS) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    }).immediate();
  }
}
