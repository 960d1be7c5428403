import t from 'tap';
import { z } from 'zod';
import { SnapshotTenant } from '../../openapi/snapshot.js';
import { openDatabase } from '../../store/db.js';
import { NOT_IN_SNAPSHOT, SNAPSHOT_TABLES } from '../../store/snapshot.js';

const db = openDatabase(':memory:');
t.teardown(() => db.close());
const tablesOf = () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
const columnsOf = (table: string) => db.pragma(`table_info(${table})`) as { name: string; notnull: number; pk: number }[];
const parentsOf = (table: string) => (db.pragma(`foreign_key_list(${table})`) as { table: string }[]).map((fk) => fk.table);

t.test('every table a tenant owns, by its tenant_id or through a parent it names, is in the snapshot or excluded with a reason', async (t) => {
  const owned = new Set(tablesOf().filter((table) => columnsOf(table).some((c) => c.name === 'tenant_id')));
  for (let grew = true; grew;) {
    grew = false;
    for (const table of tablesOf()) {
      if (!owned.has(table) && parentsOf(table).some((parent) => owned.has(parent) && parent !== 'tenants')) {
        owned.add(table);
        grew = true;
      }
    }
  }
  for (const table of owned) {
    t.ok(table in SNAPSHOT_TABLES || table in NOT_IN_SNAPSHOT, `${table}: list it in store/snapshot.ts (SNAPSHOT_TABLES or NOT_IN_SNAPSHOT)`);
  }
  t.same(Object.keys(SNAPSHOT_TABLES).filter((table) => !owned.has(table)), [], 'nothing listed that a tenant does not own');
});

t.test('the format\'s columns are the database\'s, table by table, nullable exactly where the column is', async (t) => {
  const shape = SnapshotTenant.shape.tables.shape as unknown as Record<string, z.ZodArray<z.ZodObject> | z.ZodOptional<z.ZodArray<z.ZodObject>>>;
  t.same(Object.keys(shape).sort(), Object.keys(SNAPSHOT_TABLES).sort(), 'a table of the format per table of the store');
  for (const [table, rows] of Object.entries(shape)) {
    // A table added by a later version is optional in the shape (older documents lack it).
    const fields = (rows instanceof z.ZodOptional ? rows.unwrap() : rows).element.shape;
    const columns = columnsOf(table).filter((c) => c.name !== 'tenant_id');
    t.same(Object.keys(fields).sort(), columns.map((c) => c.name).sort(), `${table}: the same columns`);
    for (const c of columns) {
      // An INTEGER PRIMARY KEY is the rowid: never null once stored, whatever notnull says.
      const nullable = c.notnull === 0 && c.pk === 0;
      t.equal(fields[c.name]?.safeParse(null).success, nullable, `${table}.${c.name} ${nullable ? 'takes' : 'refuses'} null`);
    }
  }
});
