import Database from 'better-sqlite3';
import type { Db } from '../store/db.js';

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

/** The rows a fresh launch commits (POST /v1/rl-runs), with the request's own journal row. */
export interface LaunchRows {
  tenant: Row;
  workload: Row;
  idempotency: Row;
  gradingPlans: Row[];
  journal: Row;
}

/** fn with a read-only connection to a live server's database (WAL lets a reader in beside it). */
function reading<T>(db: string, fn: (all: (sql: string, ...args: unknown[]) => Row[]) => T): T {
  const reader = new Database(db, { readonly: true });
  try {
    return fn((sql, ...args) => reader.prepare(sql).all(...args) as Row[]);
  } finally {
    reader.close();
  }
}

/** A prepared INSERT of rows shaped like `sample`, values bound by column name. */
export function insertInto(db: Db, table: string, sample: Row) {
  const columns = Object.keys(sample);
  return db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
}

/** What launching `workloadId` with `idempotencyKey` stored. */
export function readLaunchRows(db: string, workloadId: string, idempotencyKey: string): LaunchRows {
  return reading(db, (all) => {
    const [workload] = all('SELECT * FROM workloads WHERE id = ?', workloadId);
    return {
      tenant: all('SELECT * FROM tenants WHERE id = ?', workload.tenant_id)[0],
      workload,
      idempotency: all('SELECT * FROM idempotency_keys WHERE workload_id = ?', workloadId)[0],
      gradingPlans: all('SELECT * FROM grading_plans WHERE workload_id = ?', workloadId),
      journal: all("SELECT * FROM request_journal WHERE method = 'POST' AND idempotency_key = ? ORDER BY id LIMIT 1", idempotencyKey)[0],
    };
  });
}

/** Reads a workload's materialised rows from a live server's database. */
export function readRows(db: string, workloadId: string): RowDump {
  return reading(db, (all) => {
    const [workload] = all('SELECT * FROM workloads WHERE id = ?', workloadId);
    return {
      tenant: all('SELECT * FROM tenants WHERE id = ?', workload.tenant_id)[0],
      workload,
      gradingPlans: all('SELECT * FROM grading_plans WHERE workload_id = ?', workloadId),
      tables: MATERIALISED_TABLES.map((table) => ({ table, rows: all(`SELECT * FROM ${table} WHERE workload_id = ? ORDER BY rowid`, workloadId) })),
    };
  });
}

export const rowCount = (dump: RowDump) => dump.tables.reduce((n, t) => n + t.rows.length, 0);
