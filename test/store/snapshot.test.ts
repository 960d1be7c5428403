import t from '../helpers/tap.js';
import { z } from 'zod';
import { SnapshotTenant } from '../../openapi/snapshot.js';
import { openDatabase } from '../../store/db.js';
import { createSnapshotStore, SNAPSHOT_TABLES, type SnapshotTable } from '../../store/snapshot.js';

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

t.test('a held document is copied into a tenant only while it is the one held, its texts substituted', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const store = createSnapshotStore(db);
  const tenants = ['tn_a', 'tn_b', 'tn_c', 'tn_d', 'tn_e'];
  for (const id of tenants) db.prepare('INSERT INTO tenants (id, created_at_ms, clock_anchor_wall_ms, clock_anchor_virtual_ms) VALUES (?, 0, 0, 0)').run(id);
  const tables = Object.keys(SNAPSHOT_TABLES) as SnapshotTable[];
  const columns = Object.fromEntries(tables.map((table) => [table, columnsOf(table).map((c) => c.name).filter((c) => c !== 'tenant_id')])) as Record<SnapshotTable, string[]>;
  // One row of one table, the scenario a tenant applied: its text tells which rows were written.
  const document = (entry: string) => Object.fromEntries(tables.map((table) => [table, table === 'scenario_applied' ? [[entry, 7]] : []])) as Record<SnapshotTable, (string | number)[][]>;
  const applied = (tenant: string) => db.prepare('SELECT entry_sha256 FROM scenario_applied WHERE tenant_id = ?').pluck().get(tenant);
  const substitutes = { scenario_applied: { entry_sha256: new Map([['held', 'held, substituted']]) } };
  const restore = (tenant: string, id: number) => db.transaction(() => store.insert(tenant, columns, document('given'), { id, substitutes }))();

  t.throws(() => db.transaction(() => {
    store.hold(columns, document('held'));
    throw new Error('the restore fails');
  })(), /the restore fails/);
  t.notOk(store.holds(1), 'a first hold rolled back holds nothing');
  restore('tn_a', 1);
  t.equal(applied('tn_a'), 'given', 'and its id copies nothing: the rows given are written');

  const held = db.transaction(() => store.hold(columns, document('held')))();
  t.ok(store.holds(held), 'a committed hold holds');
  t.same(restore('tn_b', held).scenario_applied, 1, 'the rows written, counted');
  t.equal(applied('tn_b'), 'held, substituted', 'its rows are copied, the text substituted');

  t.throws(() => db.transaction(() => {
    store.hold(columns, document('another'));
    throw new Error('the restore fails');
  })(), /the restore fails/);
  t.ok(store.holds(held), 'a later hold rolled back leaves the one before held');
  restore('tn_c', held);
  t.equal(applied('tn_c'), 'held, substituted', 'and copied as it was');

  const later = db.transaction(() => store.hold(columns, document('later')))();
  t.notOk(store.holds(held), 'a later hold replaces it');
  restore('tn_d', held);
  t.equal(applied('tn_d'), 'given', 'so its id copies nothing');
  restore('tn_e', later);
  t.equal(applied('tn_e'), 'later', 'the later one is copied, with nothing to substitute');
});
