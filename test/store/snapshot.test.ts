import t from 'tap';
import { z } from 'zod';
import { SnapshotTenant } from '../../openapi/snapshot.js';
import { openDatabase } from '../../store/db.js';
import { SNAPSHOT_TABLES } from '../../store/snapshot.js';

const db = openDatabase(':memory:');
t.teardown(() => db.close());
const columnsOf = (table: string) => db.pragma(`table_info(${table})`) as { name: string; notnull: number; pk: number }[];

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
