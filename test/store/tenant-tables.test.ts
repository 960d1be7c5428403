import t from '../helpers/tap.js';
import { openDatabase } from '../../store/db.js';
import { TENANT_TABLES, tenantTables } from '../../store/tenant-tables.js';

// The registry against the schema every migration made: a table a new migration adds with a
// tenant_id, or under a table a tenant owns, fails here until reset, snapshots and the cache are
// told what to do with it.
const db = openDatabase(':memory:');
t.teardown(() => db.close());
const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
const columnsOf = (table: string) => (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name);
const foreignKeys = (table: string) => db.pragma(`foreign_key_list(${table})`) as { table: string; from: string; to: string; on_delete: string }[];
const listed = TENANT_TABLES as Record<string, (typeof tenantTables)[number][1]>;

/** The tables whose rows are a tenant's: the tenants, what has a tenant_id, what names such a row. */
function owned(): Set<string> {
  const found = new Set(['tenants', ...tables.filter((table) => columnsOf(table).includes('tenant_id'))]);
  for (let grew = true; grew;) {
    grew = false;
    for (const table of tables) {
      if (!found.has(table) && foreignKeys(table).some((fk) => found.has(fk.table))) {
        found.add(table);
        grew = true;
      }
    }
  }
  return found;
}

t.test('every table a tenant owns, by its tenant_id or through a parent, is in the registry, and nothing else', async (t) => {
  const tenantOwned = owned();
  for (const table of tenantOwned) t.ok(table in listed, `${table}: add it to store/tenant-tables.ts`);
  t.same(Object.keys(listed).filter((table) => !tenantOwned.has(table)), [], 'nothing listed that a tenant does not own');
});

t.test('each entry holds for the schema: the owner\'s columns, reset\'s deletes and cascades, the cached tables', async (t) => {
  const deleted = new Set(tenantTables.flatMap(([table, spec]) => (spec.reset === 'deleted' ? [table] : [])));
  // What a deletion by tenant_id reaches through ON DELETE CASCADE.
  const emptied = new Set<string>(deleted);
  for (let grew = true; grew;) {
    grew = false;
    for (const table of tables) {
      if (!emptied.has(table) && foreignKeys(table).some((fk) => fk.on_delete === 'CASCADE' && emptied.has(fk.table))) {
        emptied.add(table);
        grew = true;
      }
    }
  }
  const position = new Map<string, number>(tenantTables.map(([table], i) => [table, i]));
  for (const [table, spec] of tenantTables) {
    const columns = columnsOf(table);
    if (spec.owner.by === 'tenant') t.ok(columns.includes('tenant_id'), `${table} has a tenant_id`);
    if (spec.owner.by === 'parent') {
      const { column, parent, key } = spec.owner;
      t.ok(columns.includes(column) && columnsOf(parent).includes(key), `${table}.${column} names ${parent}.${key}`);
      t.ok(position.get(parent)! < position.get(table)!, `${table} after its parent ${parent}: a restore inserts parents first`);
      t.equal(listed[parent].snapshot, spec.snapshot, `${table} is carried as its parent ${parent} is`);
    }
    if (spec.reset === 'deleted') t.ok(columns.includes('tenant_id'), `${table} is deleted by tenant_id`);
    if (spec.reset === 'cascaded') t.ok(emptied.has(table) && !deleted.has(table), `${table} is emptied by a cascade from a table reset deletes`);
    if (typeof spec.reset === 'object') t.notOk(emptied.has(table), `${table}, kept by reset, is emptied by no cascade`);
    if (spec.cached) t.ok(columns.includes(spec.owner.by === 'self' ? 'id' : 'tenant_id'), `${table}: the cache names its tenant`);
  }
});
