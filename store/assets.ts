import type { Db } from './db.js';

export type AssetKind = 'upload' | 'url' | 'github' | 'huggingface' | 'connection_query';
/** As stored; a connection_query import past its ready_at_ms reads as ready (domain/assets). */
export type StoredAssetState = 'importing' | 'ready' | 'failed' | 'deleted';
export type ArchiveKind = 'tar' | 'tar.gz' | 'zip';

export interface AssetRow {
  id: string;
  tenantId: string;
  kind: AssetKind;
  name: string;
  state: StoredAssetState;
  revision: string;
  sha256: string;
  bytes: number;
  createdAtMs: number;
  readyAtMs: number | null;
  deletedAtMs: number | null;
  error: string | null;
  archive: ArchiveKind | null;
  /** JSON of an archive's file list. */
  files: string | null;
  idempotencyKey: string | null;
  queryHash: string | null;
  /** JSON of a connection_query's export settings. */
  export: string | null;
}

/** What the tenant's assets hold at one virtual instant. */
export interface AssetUsage {
  storedBytes: number;
  stagedBytes: number;
  importing: number;
}

/** Parts of at most this many bytes: far below SQLite's length limit, and no giant row to read. */
const PART_BYTES = 4 * 1024 * 1024;

const COLUMNS = `id, tenant_id AS tenantId, kind, name, state, revision, sha256, bytes, created_at_ms AS createdAtMs,
  ready_at_ms AS readyAtMs, deleted_at_ms AS deletedAtMs, error, archive, files, idempotency_key AS idempotencyKey,
  query_hash AS queryHash, export`;

/** An import is in progress while stored as importing and not yet due. */
const IN_PROGRESS = `state = 'importing' AND ready_at_ms > @nowMs`;
const READY = `(state = 'ready' OR (state = 'importing' AND ready_at_ms <= @nowMs))`;

export function createAssetStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO assets (id, tenant_id, kind, name, state, revision, sha256, bytes, created_at_ms, ready_at_ms,
       deleted_at_ms, error, archive, files, idempotency_key, query_hash, export)
     VALUES (@id, @tenantId, @kind, @name, @state, @revision, @sha256, @bytes, @createdAtMs, @readyAtMs,
       @deletedAtMs, @error, @archive, @files, @idempotencyKey, @queryHash, @export)`,
  );
  const insertPart = db.prepare('INSERT INTO asset_contents (asset_id, part, data) VALUES (?, ?, ?)');
  const get = db.prepare<[string, string], AssetRow>(`SELECT ${COLUMNS} FROM assets WHERE id = ? AND tenant_id = ?`);
  const byKey = db.prepare<[string, string], AssetRow>(`SELECT ${COLUMNS} FROM assets WHERE tenant_id = ? AND idempotency_key = ?`);
  const list = db.prepare<[string, number], AssetRow>(
    `SELECT ${COLUMNS} FROM assets WHERE tenant_id = ? AND state != 'deleted' ORDER BY created_at_ms DESC, seq DESC LIMIT ?`,
  );
  const usage = db.prepare<{ tenantId: string; nowMs: number }, AssetUsage>(
    `SELECT coalesce(sum(CASE WHEN ${READY} THEN bytes END), 0) AS storedBytes,
            coalesce(sum(CASE WHEN ${IN_PROGRESS} THEN bytes END), 0) AS stagedBytes,
            count(CASE WHEN ${IN_PROGRESS} THEN 1 END) AS importing
     FROM assets WHERE tenant_id = @tenantId`,
  );
  const reusable = db.prepare<{ tenantId: string; queryHash: string; nowMs: number }, AssetRow>(
    `SELECT ${COLUMNS} FROM assets WHERE tenant_id = @tenantId AND kind = 'connection_query' AND query_hash = @queryHash
       AND ${READY} ORDER BY created_at_ms DESC, seq DESC LIMIT 1`,
  );
  const fail = db.prepare(`UPDATE assets SET state = 'failed', ready_at_ms = NULL, error = ? WHERE id = ?`);
  const markDeleted = db.prepare(`UPDATE assets SET state = 'deleted', deleted_at_ms = ? WHERE id = ?`);
  const dropContents = db.prepare('DELETE FROM asset_contents WHERE asset_id = ?');
  const parts = db.prepare<[string], { data: Buffer }>('SELECT data FROM asset_contents WHERE asset_id = ? ORDER BY part');
  const hold = db.prepare('INSERT OR IGNORE INTO workload_assets (workload_id, asset_id) VALUES (?, ?)');
  const holders = db.prepare<[string], { id: string; status: string }>(
    `SELECT w.id, w.status FROM workload_assets wa JOIN workloads w ON w.id = wa.workload_id WHERE wa.asset_id = ?`,
  );

  return {
    /** Stores the row and its contents; call inside the admitting transaction. */
    insert(row: AssetRow, contents: Buffer): void {
      insert.run(row);
      for (let offset = 0, part = 0; offset < contents.length; offset += PART_BYTES, part++) {
        insertPart.run(row.id, part, contents.subarray(offset, offset + PART_BYTES));
      }
    },
    /** Another tenant's asset is indistinguishable from a missing one. */
    get(tenantId: string, id: string): AssetRow | undefined {
      return get.get(id, tenantId);
    },
    byKey(tenantId: string, key: string): AssetRow | undefined {
      return byKey.get(tenantId, key);
    },
    /** Newest first, deleted ones left out. */
    list(tenantId: string, limit: number): AssetRow[] {
      return list.all(tenantId, limit);
    },
    usage(tenantId: string, nowMs: number): AssetUsage {
      return usage.get({ tenantId, nowMs })!;
    },
    /** The newest ready export of this query, if any. */
    reusable(tenantId: string, queryHash: string, nowMs: number): AssetRow | undefined {
      return reusable.get({ tenantId, queryHash, nowMs });
    },
    fail(id: string, error: string): void {
      fail.run(error, id);
    },
    /** The row stays (its key still answers); the contents go. */
    markDeleted(id: string, nowMs: number): void {
      markDeleted.run(nowMs, id);
      dropContents.run(id);
    },
    contents(id: string): Buffer {
      return Buffer.concat(parts.all(id).map((p) => p.data));
    },
    hold(workloadId: string, assetIds: Iterable<string>): void {
      for (const assetId of assetIds) hold.run(workloadId, assetId);
    },
    /** The workloads that name this asset, with their stored (possibly stale) status. */
    holders(assetId: string): { id: string; status: string }[] {
      return holders.all(assetId);
    },
  };
}
