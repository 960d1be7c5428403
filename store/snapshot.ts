import { connect } from './sqlite-addon.js';
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import { tenantTables, type RowOwner, type TablesWhere } from './tenant-tables.js';

/**
 * Keys the server numbers for itself across every tenant (each table's row id). A document holds
 * them as the row's position among the tenant's rows (1, 2, ...), so it shows nothing of other
 * tenants' activity, and a restore lets SQLite number the rows anew, so no document can move
 * anyone's numbering. `SNAPSHOT_REFERENCES` are the columns of other tables that name such a key.
 */
export const SERVER_NUMBERED: Partial<Record<SnapshotTable, string>> = {
  assets: 'seq',
  faults: 'seq',
  request_journal: 'id',
  webhook_deliveries: 'seq',
  secrets: 'seq',
  connections: 'seq',
  workload_rules: 'seq',
};
export const SNAPSHOT_REFERENCES: Partial<Record<SnapshotTable, { column: string; table: SnapshotTable }>> = {
  webhook_attempts: { column: 'delivery_seq', table: 'webhook_deliveries' },
};

export type SnapshotTable = TablesWhere<'snapshot', 'carried'>;
/**
 * Every table a snapshot carries (store/tenant-tables.ts), in the order a restore inserts them
 * (parents first), with how its rows are found.
 */
export const SNAPSHOT_TABLES = Object.fromEntries(
  tenantTables.flatMap(([table, { owner, snapshot }]) => (snapshot === 'carried' && owner.by !== 'self' ? [[table, owner]] : [])),
) as Readonly<Record<SnapshotTable, RowOwner>>;
/** A row as the document holds it: SQL values, BLOBs as base64 text. */
export type SnapshotRow = Record<string, string | number | null>;
/** A row's values in an order its columns are named in elsewhere: how a restore hands rows over. */
export type SnapshotValues = (string | number | null)[];
export type SnapshotTables = Record<SnapshotTable, SnapshotRow[]>;

/** A row the database refused on restore (a clash with another tenant's id, a broken reference). */
export class SnapshotRowError extends Error {
  override name = 'SnapshotRowError';
  constructor(
    readonly table: SnapshotTable,
    readonly index: number,
    /** The column named by the constraint, when SQLite names one. */
    readonly column: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

interface Column {
  name: string;
  blob: boolean;
}

/** The column a failed UNIQUE or PRIMARY KEY constraint names first (`... failed: table.column, ...`). */
function constraintColumn(table: string, message: string): string | undefined {
  return new RegExp(`constraint failed: ${table}\\.(\\w+)`).exec(message)?.[1];
}

/** Each snapshot table with its columns, every one but `tenant_id`, in the database's order. */
function columnsOf(db: Db) {
  return (Object.entries(SNAPSHOT_TABLES) as [SnapshotTable, RowOwner][]).map(([table, owner]) => ({
    table,
    owner,
    columns: (db.pragma(`table_info(${table})`) as { name: string; type: string }[])
      .filter((c) => c.name !== 'tenant_id')
      .map((c): Column => ({ name: c.name, blob: c.type === 'BLOB' })),
  }));
}

/** Each snapshot table's insert of one row, leaving its server-numbered key to SQLite. */
function prepareInserts(db: Db) {
  return columnsOf(db).map(({ table, owner, columns }) => {
    const numbered = SERVER_NUMBERED[table];
    const written = columns.filter((c) => c.name !== numbered);
    const names = owner.by === 'tenant' ? ['tenant_id', ...written.map((c) => c.name)] : written.map((c) => c.name);
    const insert = db.prepare(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`);
    const refers = SNAPSHOT_REFERENCES[table];
    // A table whose rows SQLite numbers, that names such rows, or holds bytes is inserted row by row.
    const copied = !numbered && !refers && !written.some((c) => c.blob);
    return { table, owner, written, names, numbered, refers, insert, copied };
  });
}

/** The TEMP table holding a document's rows of `table` (createSnapshotStore's hold). */
const heldTable = (table: SnapshotTable) => `temp.snapshot_held_${table}`;

/**
 * Texts of a held document and what a restore writes in their place, per table and column: the
 * document's ids made the target tenant's (a fork). A table without an entry is not copied.
 */
export type HeldSubstitutes = Partial<Record<SnapshotTable, Record<string, Map<string, string>>>>;

/** Each table's server-numbered keys, from one numbering (the database's, a document's) to another. */
function renumbering() {
  const numbers = new Map<SnapshotTable, Map<unknown, number>>();
  return {
    /** Notes that the row the first numbering calls `from` is `to` in the second. */
    note(table: SnapshotTable, from: unknown, to: number): void {
      let map = numbers.get(table);
      if (!map) numbers.set(table, (map = new Map()));
      map.set(from, to);
    },
    of(table: SnapshotTable, from: unknown): number | undefined {
      return numbers.get(table)?.get(from);
    },
  };
}
type Renumbering = ReturnType<typeof renumbering>;

/** Each snapshot table's select of a tenant's rows, in the order they were stored. */
function prepareSelects(db: Db) {
  return columnsOf(db).map(({ table, owner, columns }) => {
    const select = owner.by === 'tenant'
      ? db.prepare(`SELECT ${columns.map((c) => c.name).join(', ')} FROM ${table} WHERE tenant_id = ? ORDER BY rowid`)
      : db.prepare(`SELECT ${columns.map((c) => `t.${c.name}`).join(', ')} FROM ${table} t
          JOIN ${owner.parent} p ON p.${owner.key} = t.${owner.column} WHERE p.tenant_id = ? ORDER BY t.rowid`);
    return { table, columns, select };
  });
}

/** A table's rows as the document holds them; the statement runs at the first row asked for. */
function* documentRows(table: SnapshotTable, select: Statement, tenantId: string, columns: Column[], keys: Renumbering): Generator<SnapshotRow> {
  const blobs = columns.filter((c) => c.blob).map((c) => c.name);
  const numbered = SERVER_NUMBERED[table];
  const refers = SNAPSHOT_REFERENCES[table];
  let position = 0;
  for (const row of select.iterate(tenantId) as Iterable<SnapshotRow>) {
    for (const name of blobs) if (row[name] !== null) row[name] = (row[name] as unknown as Buffer).toString('base64');
    if (numbered) {
      keys.note(table, row[numbered], ++position);
      row[numbered] = position;
    }
    if (refers) row[refers.column] = keys.of(refers.table, row[refers.column])!;
    yield row;
  }
}

/** One committed state of a tenant's rows, read table by table while the server goes on writing. */
export interface SnapshotReader {
  /** Each table of SNAPSHOT_TABLES in order, its rows read one at a time as they are asked for. */
  tables(): Generator<[SnapshotTable, Generator<SnapshotRow>]>;
  /** Ends the read; call it once every row asked for was taken, or the rows were given up. */
  close(): void;
}

export function createSnapshotStore(db: Db) {
  // Built on the first restore rather than at open: a statement and a table_info per table were
  // about 3 ms of every start, and most servers never restore a snapshot.
  let built: ReturnType<typeof prepareInserts> | undefined;
  const insertsOf = () => (built ??= prepareInserts(db));
  // The journal goes on numbering after the document's rows and after any id the tenant gave out before.
  let raiseJournalNumber: Statement | undefined;
  const journalNumber = () => (raiseJournalNumber ??= db.prepare(
    `INSERT INTO journal_numbers (tenant_id, last_seq) SELECT ?, coalesce(max(seq), 0) FROM request_journal WHERE tenant_id = ?
     ON CONFLICT (tenant_id) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)`,
  ));

  // A held document (hold): its id, the statements copying its rows into a tenant (by table and
  // the columns substituted), and the substitutions of the copy under way.
  let heldId = 0;
  let heldTableIs: Statement | undefined;
  let heldIs: Statement | undefined;
  const copies = new Map<string, Statement>();
  let substitutes: Statement | undefined;

  /**
   * Copies the held rows of `table` into the tenant, each text of a substituted column that
   * `temp.snapshot_substitutes` names replaced, in the order they were held; answers the rows
   * written, or undefined when the database refused one (a row-by-row insert then names it).
   */
  const copyHeld = (tenantId: string, table: SnapshotTable, owner: RowOwner, names: string[], columns: readonly string[]) => {
    const key = `${table}:${columns.join(',')}`;
    let copy = copies.get(key);
    if (!copy) {
      const joins = columns.map((c, i) => `LEFT JOIN temp.snapshot_substitutes s${i} ON s${i}.col = '${table}.${c}' AND s${i}.given = k.${c}`);
      const values = names.map((c) => (c === 'tenant_id' ? '?' : columns.includes(c) ? `coalesce(s${columns.indexOf(c)}.written, k.${c})` : `k.${c}`));
      copy = db.prepare(`INSERT INTO ${table} (${names.join(', ')}) SELECT ${values.join(', ')} FROM ${heldTable(table)} k ${joins.join(' ')} ORDER BY k.rowid`);
      copies.set(key, copy);
    }
    try {
      return (owner.by === 'tenant' ? copy.run(tenantId) : copy.run()).changes;
    } catch (err) {
      if ((err as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) return undefined;
      throw err;
    }
  };

  /** Whether the rows `hold` answered `id` for are the ones held now (committed, not replaced since). */
  const holds = (id: number): boolean => {
    if (heldId === 0) return false;
    // A hold rolled back leaves no table to ask.
    heldTableIs ??= db.prepare("SELECT count(*) FROM temp.sqlite_schema WHERE name = 'snapshot_held'").pluck();
    if (heldTableIs.get() !== 1) return false;
    heldIs ??= db.prepare('SELECT count(*) FROM temp.snapshot_held WHERE id = ?').pluck();
    return heldIs.get(id) === 1;
  };

  return {
    /**
     * Keeps a document's rows (as `insert` takes them) in TEMP tables of this connection, in place
     * of any held before, so that `insert` copies them into a tenant inside SQLite rather than
     * binding each row again; answers the id `insert` names them by. Run inside the caller's
     * transaction: if it rolls back, so does the hold, and `holds` answers false.
     */
    hold(columns: Record<SnapshotTable, readonly string[]>, rows: Record<SnapshotTable, Iterable<SnapshotValues>>): number {
      const id = ++heldId;
      db.exec('CREATE TEMP TABLE IF NOT EXISTS snapshot_held (id INTEGER NOT NULL); DELETE FROM temp.snapshot_held');
      db.prepare('INSERT INTO temp.snapshot_held (id) VALUES (?)').run(id);
      db.exec(`DROP TABLE IF EXISTS temp.snapshot_substitutes;
        CREATE TEMP TABLE snapshot_substitutes (col TEXT NOT NULL, given TEXT NOT NULL, written TEXT NOT NULL, PRIMARY KEY (col, given)) WITHOUT ROWID`);
      for (const { table, copied } of insertsOf()) {
        db.exec(`DROP TABLE IF EXISTS ${heldTable(table)}`);
        if (!copied) continue;
        // Columns without a type: each value keeps the type it was bound with, as in a row's insert.
        db.exec(`CREATE TEMP TABLE snapshot_held_${table} (${columns[table].join(', ')})`);
        const keep = db.prepare(`INSERT INTO ${heldTable(table)} VALUES (${columns[table].map(() => '?').join(', ')})`);
        for (const row of rows[table]) keep.run(row);
      }
      // The tables changed, so the statements prepared on the old ones go.
      copies.clear();
      return id;
    },

    holds,

    /**
     * The tenant's rows as the database holds them now, on a connection of the reader's own:
     * its read transaction starts here, and in WAL mode it goes on seeing this committed state
     * while the server's connection writes, for as long as the rows take to send. A `:memory:`
     * database cannot be opened twice, so its reader reads a private copy of it.
     */
    openReader(tenantId: string): SnapshotReader {
      const reader = db.memory ? connect(db.serialize()) : connect(db.name, { readonly: true });
      let selects: ReturnType<typeof prepareSelects>;
      try {
        // Rows pass through once: a small page cache keeps the read from growing the process.
        reader.pragma('cache_size = -1024');
        reader.exec('BEGIN');
        // A read transaction takes its snapshot at its first read, not at BEGIN.
        reader.prepare('SELECT count(*) FROM sqlite_schema').get();
        selects = prepareSelects(reader);
      } catch (err) {
        reader.close();
        throw err;
      }
      return {
        *tables() {
          const keys = renumbering();
          for (const { table, columns, select } of selects) yield [table, documentRows(table, select, tenantId, columns, keys)];
        },
        close() {
          if (reader.open) reader.close();
        },
      };
    },

    /**
     * Inserts a document's rows for the tenant, whose own rows must be gone already, taking each
     * table's rows one at a time as they are read (from a spool, say), each as its values in the
     * order `columns` names them (every column but `tenant_id`); answers the rows written per
     * table. Throws a SnapshotRowError at the first row the database refuses. Run inside the
     * caller's transaction, which that error rolls back whole. With `held` rows that are still
     * held (hold), each table `substitutes` names is copied from them inside SQLite, its texts
     * substituted, rather than taken from `rows`: the same rows, without binding each one again
     * (a 100-workload baseline's 8,800 rows were most of a fork's time). `rows` are then read only
     * for the other tables, or to name the row when the database refuses the copy.
     */
    insert(
      tenantId: string,
      columns: Record<SnapshotTable, readonly string[]>,
      rows: Record<SnapshotTable, Iterable<SnapshotValues>>,
      held?: { id: number; substitutes: HeldSubstitutes },
    ): Record<SnapshotTable, number> {
      const keys = renumbering();
      const written = {} as Record<SnapshotTable, number>;
      const copying = held !== undefined && holds(held.id);
      if (copying) {
        db.exec('DELETE FROM temp.snapshot_substitutes');
        substitutes ??= db.prepare('INSERT INTO temp.snapshot_substitutes (col, given, written) VALUES (?, ?, ?)');
        for (const [table, byColumn] of Object.entries(held.substitutes)) {
          for (const [column, texts] of Object.entries(byColumn!)) for (const [given, text] of texts) substitutes.run(`${table}.${column}`, given, text);
        }
      }
      for (const { table, owner, written: stored, names, numbered, refers, insert, copied } of insertsOf()) {
        const substituted = copying && copied ? held.substitutes[table] : undefined;
        if (substituted) {
          const count = copyHeld(tenantId, table, owner, names, Object.keys(substituted));
          if (count !== undefined) {
            written[table] = count;
            continue;
          }
        }
        // Where each stored column is among the row's values, by position: no walk by name per row.
        const given = columns[table];
        const at = (name: string) => {
          const i = given.indexOf(name);
          if (i < 0) throw new Error(`snapshot insert: no values for ${table}.${name}`);
          return i;
        };
        const from = stored.map((c) => at(c.name));
        const blobs = stored.flatMap((c, i) => (c.blob ? [i] : []));
        const refersAt = refers ? stored.findIndex((c) => c.name === refers.column) : -1;
        const numberedAt = numbered ? at(numbered) : -1;
        // One array of values per table, filled again for each row: the tenant's id, then the columns.
        const values: unknown[] = owner.by === 'tenant' ? [tenantId] : [];
        const first = values.length;
        let index = 0;
        for (const row of rows[table]) {
          for (let i = 0; i < from.length; i++) values[first + i] = row[from[i]];
          for (const i of blobs) if (values[first + i] !== null) values[first + i] = Buffer.from(values[first + i] as string, 'base64');
          if (refersAt >= 0) {
            const to = keys.of(refers!.table, values[first + refersAt]);
            if (to === undefined) throw new SnapshotRowError(table, index, refers!.column, `names no row of ${refers!.table}`);
            values[first + refersAt] = to;
          }
          try {
            const { lastInsertRowid } = insert.run(values);
            if (numbered) keys.note(table, row[numberedAt], Number(lastInsertRowid));
          } catch (err) {
            if ((err as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) {
              throw new SnapshotRowError(table, index, constraintColumn(table, (err as Error).message), (err as Error).message);
            }
            throw err;
          }
          index++;
        }
        written[table] = index;
      }
      journalNumber().run(tenantId, tenantId);
      return written;
    },
  };
}
