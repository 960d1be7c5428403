import Database from 'better-sqlite3';

/** The tables one clock advance fills for a workload: the rows the materialise figure counts. */
const MATERIALISED_TABLES = ['rl_events', 'workload_events', 'workload_logs', 'grading_receipts'] as const;

export type Row = Record<string, unknown>;

/** One workload's materialised rows, with the parent rows their foreign keys need. */
export interface RowDump {
  tenant: Row;
  workload: Row;
  gradingPlans: Row[];
  tables: { table: string; rows: Row[] }[];
}

/** Reads a workload's rows from a live server's database (WAL lets a reader in beside it). */
export function readRows(db: string, workloadId: string): RowDump {
  const reader = new Database(db, { readonly: true });
  try {
    const all = (sql: string, ...args: unknown[]) =>
      (reader.prepare(sql).all(...args) as Row[]).map(({ seq: _seq, ...row }) => row);
    const [workload] = all('SELECT * FROM workloads WHERE id = ?', workloadId);
    return {
      tenant: all('SELECT * FROM tenants WHERE id = ?', workload.tenant_id)[0],
      workload,
      gradingPlans: all('SELECT * FROM grading_plans WHERE workload_id = ?', workloadId),
      tables: MATERIALISED_TABLES.map((table) => ({ table, rows: all(`SELECT * FROM ${table} WHERE workload_id = ? ORDER BY rowid`, workloadId) })),
    };
  } finally {
    reader.close();
  }
}

export const rowCount = (dump: RowDump) => dump.tables.reduce((n, t) => n + t.rows.length, 0);
