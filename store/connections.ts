import type { Db } from './db.js';

export interface ConnectionRow {
  id: string;
  tenantId: string;
  name: string;
  kind: 'postgres' | 'neon' | 'supabase' | 'wandb';
  secretId: string;
  secretVersion: number;
  scope: 'read' | 'write' | 'readwrite';
  region: string | null;
  branch: string | null;
  entity: string | null;
  project: string | null;
  liveMode: number;
  /** JSON array of host names. */
  egressHosts: string;
  verifiedAtMs: number;
  createdAtMs: number;
  createdBy: string;
}

const COLUMNS = `id, tenant_id AS tenantId, name, kind, secret_id AS secretId, secret_version AS secretVersion, scope,
  region, branch, entity, project, live_mode AS liveMode, egress_hosts AS egressHosts, verified_at_ms AS verifiedAtMs,
  created_at_ms AS createdAtMs, created_by AS createdBy`;

export function createConnectionStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO connections (id, tenant_id, name, kind, secret_id, secret_version, scope, region, branch, entity, project,
       live_mode, egress_hosts, verified_at_ms, created_at_ms, created_by)
     VALUES (@id, @tenantId, @name, @kind, @secretId, @secretVersion, @scope, @region, @branch, @entity, @project,
       @liveMode, @egressHosts, @verifiedAtMs, @createdAtMs, @createdBy)`,
  );
  const byRef = db.prepare<[string, string, string], ConnectionRow>(`SELECT ${COLUMNS} FROM connections WHERE tenant_id = ? AND (id = ? OR name = ?)`);
  const list = db.prepare<[string], ConnectionRow>(`SELECT ${COLUMNS} FROM connections WHERE tenant_id = ? ORDER BY seq`);
  const count = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM connections WHERE tenant_id = ?');
  const verified = db.prepare('UPDATE connections SET verified_at_ms = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM connections WHERE id = ?');
  const hold = db.prepare('INSERT OR IGNORE INTO workload_connections (workload_id, connection_id) VALUES (?, ?)');
  const holders = db.prepare<[string], { id: string; status: string }>(
    'SELECT w.id, w.status FROM workload_connections wc JOIN workloads w ON w.id = wc.workload_id WHERE wc.connection_id = ?',
  );
  const heldBy = db.prepare<[string], { connectionId: string }>('SELECT connection_id AS connectionId FROM workload_connections WHERE workload_id = ?');
  // A query import names its connection by name or id, as sent; it is in progress until due.
  const exporting = db.prepare<{ tenantId: string; id: string; name: string; nowMs: number }, { id: string }>(
    `SELECT id FROM assets WHERE tenant_id = @tenantId AND kind = 'connection_query' AND state = 'importing'
       AND ready_at_ms > @nowMs AND json_extract(export, '$.connection_id') IN (@id, @name) LIMIT 1`,
  );
  return {
    insert(row: ConnectionRow): void {
      insert.run(row);
    },
    /** By id or name; another tenant's reads as missing. Names cannot take the conn_ prefix, so one row matches. */
    find(tenantId: string, ref: string): ConnectionRow | undefined {
      return byRef.get(tenantId, ref, ref);
    },
    /** Oldest first. */
    list(tenantId: string): ConnectionRow[] {
      return list.all(tenantId);
    },
    count(tenantId: string): number {
      return count.get(tenantId)!.n;
    },
    verified(id: string, nowMs: number): void {
      verified.run(nowMs, id);
    },
    remove(id: string): void {
      remove.run(id);
    },
    hold(workloadId: string, connectionId: string): void {
      hold.run(workloadId, connectionId);
    },
    /** The workloads admitted with this connection, with their stored (possibly stale) status. */
    holders(connectionId: string): { id: string; status: string }[] {
      return holders.all(connectionId);
    },
    /** The connection a workload was admitted with, if any. */
    heldBy(workloadId: string): string | undefined {
      return heldBy.get(workloadId)?.connectionId;
    },
    /** An asset whose query export through this connection is still in progress. */
    exportInProgress(tenantId: string, row: Pick<ConnectionRow, 'id' | 'name'>, nowMs: number): string | undefined {
      return exporting.get({ tenantId, id: row.id, name: row.name, nowMs })?.id;
    },
  };
}
