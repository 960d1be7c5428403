import { existsSync, statSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from '../helpers/tap.js';
import Database from 'better-sqlite3';
import { templateDatabase } from '../../server/boot/package-info.js';
import { openDatabase, schemaVersion, writeTemplate } from '../../store/db.js';
import { MIGRATIONS } from '../../store/migrations/index.js';
import { SECRET_NAMES } from '../../store/settings.js';
import { openStore } from '../../store/index.js';
import { startInProcess, tempDbPath } from '../helpers/server.js';

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
  const secret = first.settings.secret('review-token');
  first.close();
  const second = openStore(path);
  t.teardown(() => second.close());
  t.same(second.settings.secret('review-token'), secret, 'the secret survives a restart');
  t.equal((second.db.prepare('SELECT count(*) AS n FROM schema_migrations').get() as { n: number }).n, MIGRATIONS.length);
});

t.test('every server secret exists once the store is open, before any request asks for one', async (t) => {
  const store = openStore(tempDbPath(t));
  t.teardown(() => store.close());
  const names = store.db.prepare('SELECT name FROM server_settings ORDER BY name').pluck().all();
  t.same(names, [...SECRET_NAMES].sort());
  t.equal(store.settings.secret('cursor').length, 32);
  t.notSame(store.settings.secret('cursor'), store.settings.secret('log-cursor'), 'each its own');
});

/** A database file as the build with migrations up to `version` left it, open for a test to add rows. */
function atVersion(path: string, version: number): Database.Database {
  const old = new Database(path);
  old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT');
  for (const m of MIGRATIONS.filter((m) => m.version <= version)) {
    old.exec(m.sql);
    old.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, 'then');
  }
  return old;
}

t.test('keys stored before migration 9 still replay: their route scopes become the operations', async (t) => {
  const path = tempDbPath(t);
  const old = atVersion(path, 8);
  old.prepare("INSERT INTO tenants (id, created_at_ms, clock_anchor_wall_ms, clock_anchor_virtual_ms) VALUES ('tn_old', 1, 1, 1)").run();
  const insert = old.prepare('INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, 202, ?, ?, 1, 9e15)');
  insert.run('tn_old', 'POST /v1/rl-runs', 'k', 'f1', '{"id":"wl_a"}', 'wl_a');
  insert.run('tn_old', 'POST /v1/workloads', 'k', 'f2', '{"id":"wl_b"}', 'wl_b');
  insert.run('tn_old', 'POST /v1/rl-environments/{environment}/examples/{example}/runs', 'k', 'f3', '{"id":"wl_c"}', 'wl_c');
  old.close();
  const store = openStore(path);
  t.teardown(() => store.close());
  t.match(store.idempotency.find('tn_old', 'rl_run.launch', 'k'), { fingerprint: 'f1', workloadId: 'wl_a' });
  t.match(store.idempotency.find('tn_old', 'workload.submit', 'k'), { fingerprint: 'f2', workloadId: 'wl_b' });
  t.match(store.idempotency.find('tn_old', 'example.run', 'k'), { fingerprint: 'f3', workloadId: 'wl_c' });
});

t.test('rows numbered before migration 12 keep their numbers, and each workload counts on from its last', async (t) => {
  const path = tempDbPath(t);
  const old = atVersion(path, 11);
  old.prepare("INSERT INTO tenants (id, created_at_ms, clock_anchor_wall_ms, clock_anchor_virtual_ms) VALUES ('tn_old', 1, 1, 1)").run();
  old.prepare("INSERT INTO request_journal (tenant_id, seq, at_ms, wall_ms, method, path, query, request_id, replayed, body_json, body_bytes, body_truncated, duration_ms) VALUES ('tn_old', 7, 1, 1, 'GET', '/v1/me', '', 'r', 0, 0, 0, 0, 1)").run();
  const workload = old.prepare(`INSERT INTO workloads (id, tenant_id, kind, payload, spec, estimated_cost_usd, created_at_ms, materialised_to_ms, status, updated_at_ms)
    VALUES (?, 'tn_old', 'custom', '{}', '{}', 0, 1, 1, 'running', 1)`);
  workload.run('wl_a');
  workload.run('wl_b');
  // Shared numbering, as every server before 12 wrote it: the two workloads' rows interleave.
  const line = old.prepare("INSERT INTO workload_logs (seq, workload_id, stage_id, generation, at_ms, line) VALUES (?, ?, 'main', 1, 1, ?)");
  const event = old.prepare("INSERT INTO workload_events (seq, workload_id, event_id, event_type, payload, created_at_ms) VALUES (?, ?, ?, 'workload.status', '{}', 1)");
  for (const [seq, id] of [[40, 'wl_a'], [41, 'wl_b'], [42, 'wl_a']] as const) {
    line.run(seq, id, `line ${seq}`);
    event.run(seq, id, `ev_${seq}`);
  }
  old.close();

  const store = openStore(path);
  t.teardown(() => store.close());
  t.same(store.runtime.logs('wl_a', 0, 10).map((l) => [l.seq, l.line]), [[40, 'line 40'], [42, 'line 42']], 'the numbers a client saw stay');
  store.runtime.appendLogs('wl_a', [{ stageId: 'main', generation: 1, atMs: 2, line: 'new' }], 1 << 20);
  store.runtime.appendLogs('wl_b', [{ stageId: 'main', generation: 1, atMs: 2, line: 'new' }], 1 << 20);
  store.runtime.addEvent('wl_b', 'ev_new', 'workload.status', {}, 2);
  t.same(store.runtime.logs('wl_a', 42, 10).map((l) => l.seq), [43], 'after the workload\'s own last');
  t.same(store.runtime.logs('wl_b', 41, 10).map((l) => l.seq), [42], 'not after the other workload\'s');
  t.same(store.runtime.events('wl_b', 41, 10).map((e) => e.seq), [42]);
  t.equal(store.db.prepare("SELECT last_seq FROM journal_numbers WHERE tenant_id = 'tn_old'").pluck().get(), 7, 'the journal goes on after its last id');
});

/** The schema as SQLite keeps it, the migrations recorded, and the tables that hold rows. */
function schemaOf(db: Database.Database) {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'schema_migrations'").pluck().all() as string[];
  return {
    // schema_migrations is made by openDatabase, in its own words; its rows are compared below.
    objects: db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name != 'schema_migrations' ORDER BY type, name").all(),
    migrations: db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all(),
    withRows: tables.filter((name) => (db.prepare(`SELECT count(*) FROM "${name}"`).pluck().get() as number) > 0),
  };
}

t.test('the template the build ships is the schema the migrations make, with no rows', async (t) => {
  const shipped = new Database(templateDatabase(), { readonly: true });
  t.teardown(() => shipped.close());
  const migrated = openDatabase(':memory:');
  t.teardown(() => migrated.close());
  const schema = schemaOf(shipped);
  t.same(schema, schemaOf(migrated));
  t.same(schema.withRows, [], 'no secrets, tenants or anything else in it');
});

/** A template with a row no migration writes, so a database copied from it can be told apart. */
function markedTemplate(t: Parameters<typeof tempDbPath>[0]): string {
  const template = join(dirname(tempDbPath(t)), 'template.db');
  writeTemplate(template);
  const raw = new Database(template);
  raw.prepare("INSERT INTO server_settings (name, value) VALUES ('marker', 'from the template')").run();
  raw.close();
  return template;
}
const marker = (db: Database.Database) => db.prepare("SELECT value FROM server_settings WHERE name = 'marker'").pluck().get();

t.test('a new database file starts as a copy of the template, with the pragmas of any other', async (t) => {
  const template = markedTemplate(t);
  const path = tempDbPath(t);
  writeFileSync(`${path}.new`, 'left by a start killed while copying');
  const db = openDatabase(path, template);
  t.teardown(() => db.close());
  t.equal(marker(db), 'from the template');
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  t.equal(schemaVersion(db), MIGRATIONS[MIGRATIONS.length - 1].version);
  t.notOk(existsSync(`${path}.new`), 'the copy was renamed into place over what a killed start left');
});

t.test('without its template (a build that did not bundle) a new database is migrated as before', async (t) => {
  const dir = dirname(tempDbPath(t));
  const db = openDatabase(join(dir, 'new.db'), join(dir, 'no-template.db'));
  t.teardown(() => db.close());
  t.equal(schemaVersion(db), MIGRATIONS[MIGRATIONS.length - 1].version);
  t.notOk(existsSync(join(dir, 'new.db.new')), 'nothing was copied');
});

t.test('a template without the latest migrations gets them when a database is copied from it', async (t) => {
  const template = join(dirname(tempDbPath(t)), 'old-template.db');
  const old = atVersion(template, 8);
  old.prepare("INSERT INTO server_settings (name, value) VALUES ('marker', 'from the template')").run();
  old.close();
  const db = openDatabase(tempDbPath(t), template);
  t.teardown(() => db.close());
  t.equal(marker(db), 'from the template', 'copied');
  const fresh = openDatabase(':memory:');
  t.teardown(() => fresh.close());
  const [copied, made] = [schemaOf(db), schemaOf(fresh)];
  t.same(copied.objects, made.objects, 'the tables of migrations 9 on are there');
  t.same(copied.migrations, made.migrations);
});

t.test('an existing file, a leftover WAL or a link is never replaced by the template', async (t) => {
  const template = markedTemplate(t);
  const existing = tempDbPath(t);
  const first = openDatabase(existing);
  first.prepare("INSERT INTO server_settings (name, value) VALUES ('mine', 'kept')").run();
  first.close();
  const reopened = openDatabase(existing, template);
  t.equal(reopened.prepare("SELECT value FROM server_settings WHERE name = 'mine'").pluck().get(), 'kept');
  t.equal(marker(reopened), undefined);
  reopened.close();

  const withWal = tempDbPath(t);
  writeFileSync(`${withWal}-wal`, '');
  const walDb = openDatabase(withWal, template);
  t.equal(marker(walDb), undefined, 'a WAL without its file is SQLite\'s to read, not the copy\'s to overwrite');
  walDb.close();

  const link = tempDbPath(t);
  const target = join(dirname(link), 'elsewhere.db');
  symlinkSync(target, link);
  const linked = openDatabase(link, template);
  t.equal(marker(linked), undefined);
  linked.close();
  t.ok(statSync(target).isFile(), 'SQLite made the database where the link points');
});

t.test('the server starts a new database from the shipped template', async (t) => {
  const db = tempDbPath(t);
  const server = await startInProcess(t, { db });
  const made = new Database(db, { readonly: true });
  t.teardown(() => made.close());
  const shipped = new Database(templateDatabase(), { readonly: true });
  t.teardown(() => shipped.close());
  const appliedAt = (d: Database.Database) => d.prepare('SELECT applied_at FROM schema_migrations ORDER BY version').pluck().all();
  t.same(appliedAt(made), appliedAt(shipped), 'its migrations are the template\'s, applied when the build wrote it');
  t.equal((await server.call('GET', '/v1/rl-recipes')).status, 200);
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
  t.notOk(existsSync(dirname(path)), 'the folder is missing at first');
  const db = openDatabase(path);
  t.equal(db.name, path);
  db.close();
  t.ok(statSync(path).isFile(), 'the database file is in the new folder');
  const reopened = new Database(path, { readonly: true });
  t.teardown(() => reopened.close());
  t.equal(schemaVersion(reopened), MIGRATIONS[MIGRATIONS.length - 1].version, 'with its schema');
});

t.test('writes queued in one turn commit together; one that throws undoes only its own', async (t) => {
  const path = tempDbPath(t);
  const store = openStore(path);
  t.teardown(() => store.close());
  const reader = new Database(path, { readonly: true });
  t.teardown(() => reader.close());
  const insert = store.db.prepare('INSERT INTO server_settings (name, value) VALUES (?, ?)');
  const names = () => store.db.prepare('SELECT name FROM server_settings ORDER BY name').pluck().all();
  const committedNames = () => reader.prepare('SELECT name FROM server_settings ORDER BY name').pluck().all();
  const before = names();
  const outcomes = await Promise.allSettled([
    store.writeTogether(() => insert.run('a', '1').changes),
    store.writeTogether(() => {
      insert.run('b', '1');
      throw new Error('refused');
    }),
    store.writeTogether(() => {
      t.ok(names().includes('a'), 'the third write sees the first one\'s row');
      t.notOk(committedNames().includes('a'), 'which is not committed: the three are one transaction');
      return insert.run('c', '1').changes;
    }),
  ]);
  t.same(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
  t.same(names(), [...before, 'a', 'c'].sort(), 'the throw rolled back its own row only');
  t.same(committedNames(), names(), 'committed once the turn ended');

  // When the group's COMMIT fails (here a deferred foreign key, checked only then), none of it is
  // stored: each write is tried alone instead, and only the one at fault fails.
  store.db.exec('CREATE TABLE test_parent (id TEXT PRIMARY KEY); CREATE TABLE test_child (parent TEXT REFERENCES test_parent (id) DEFERRABLE INITIALLY DEFERRED)');
  const alone = await Promise.allSettled([
    store.writeTogether(() => insert.run('d', '1').changes),
    store.writeTogether(() => store.db.prepare("INSERT INTO test_child (parent) VALUES ('none')").run().changes),
    store.writeTogether(() => insert.run('e', '1').changes),
  ]);
  t.same(alone.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled'], 'the write at fault fails its own commit only');
  t.same(committedNames(), [...before, 'a', 'c', 'd', 'e'].sort());
});

t.test("counting a fault request touches only the named tenant's rules", async (t) => {
  const store = openStore(tempDbPath(t));
  t.teardown(() => store.close());
  for (const tenant of ['tn_a', 'tn_b']) {
    store.tenants.register(`hash_${tenant}`, `key_${tenant}`, tenant, 1);
    store.faults.insert({ id: `flt_${tenant}`, tenantId: tenant, method: null, path: '/v1/x', times: 1, after: 0, action: '{}', source: 'api', createdAtMs: 1 });
  }
  const other = store.faults.get('tn_b', 'flt_tn_b')!;
  store.faults.count('tn_a', [other.seq], other.seq);
  t.same(store.faults.get('tn_b', 'flt_tn_b'), other, "tn_b's rule is not counted by tn_a's request");
});

t.test('commits reach the database file by the checkpointer thread, long before the WAL would checkpoint itself', async (t) => {
  const path = tempDbPath(t);
  const store = openStore(path);
  t.teardown(() => store.close());
  const before = statSync(path).size;
  const insert = store.db.prepare('INSERT INTO server_settings (name, value) VALUES (?, ?)');
  // Two commit batches' worth of 4 KB rows: a few hundred WAL pages, far below wal_autocheckpoint.
  for (let i = 0; i < 128; i++) store.write(() => insert.run(`row-${i}`, 'x'.repeat(4000)));
  // The thread checkpoints beside this one, a batch at a time, and the file grows as it copies:
  // each write to the file is an event to look again at, with no time limit of our own (tap's ends
  // a store that never copies).
  const holds = () => statSync(path).size > before + 64 * 4096;
  await new Promise<void>((resolve) => {
    const look = () => {
      if (!holds()) return;
      watcher.close();
      resolve();
    };
    const watcher = watch(path, look);
    // It may have copied them all before the watch began.
    look();
  });
  t.ok(holds(), 'the rows are in the database file, not only in the WAL');
});
