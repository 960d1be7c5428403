import type { AssetImportRequest } from '../../../openapi/assets.js';
import type { AssetRow } from '../../../store/assets.js';
import { isTerminal } from '../../simulator/types.js';
import { sha256Hex } from '../json-text.js';
import type { DomainContext } from '../context.js';
import { checkQueryConnection } from '../connections/uses.js';
import { DomainError, badRequest, conflict, notFound } from '../errors.js';
import { newAssetId, newQueryExportId } from '../ids.js';
import type { TenantUnit } from '../unit.js';
import { archiveKindOf, listArchive, type ArchiveEntry } from './archives.js';
import type { AssetReads } from './workloads.js';
import { ASSET_ID_PATTERN, checkUploadName, DEFAULT_UPLOAD_NAME, planImport, standInContent, type PlannedImport } from './rules.js';
import { assetAt, type AssetAt } from './state.js';
import type { ReceivedUpload } from './upload.js';

/** Virtual seconds a connection_query export takes before its asset is ready. */
export const QUERY_EXPORT_SECONDS = 30;
/** The contract's bound on imports in progress per tenant. */
const MAX_IMPORTS_IN_PROGRESS = 2;
/** A tar.gz may inflate to this many times the upload limit; past it, it is refused as a bomb. */
const MAX_EXPANSION = 16;
const LIST_LIMIT = 500;

export interface Upload extends ReceivedUpload {
  /** `?name=` as sent; absent means the contract's default. */
  name: string | undefined;
  key: string | undefined;
  /** X-Nodus-SHA256 as sent. */
  claimedSha256: string | undefined;
}

/** What an import did: stored it ready, started a query export, or reused an earlier export. */
export type ImportOutcome = 'ready' | 'importing' | 'reused';

export interface AssetListing {
  assets: AssetAt[];
  storedBytes: number;
  stagedBytes: number;
}

/** Uploads, imports, reads and deletes of a tenant's assets, each one transaction. */
export function createAssetService(deps: Pick<DomainContext, 'committed' | 'clock' | 'config' | 'units'>) {
  const { committed, clock, config, units } = deps;

  /** The tenant's asset, or 404: a malformed id, a missing one and another tenant's read the same. */
  function find(rows: AssetReads, tenantId: string, id: string): AssetRow {
    const row = ASSET_ID_PATTERN.test(id) ? rows.assets.get(tenantId, id) : undefined;
    if (!row) throw notFound(`asset ${id}`);
    return row;
  }

  /** The tenant's asset while it has contents. */
  function present(tenantId: string, id: string): AssetAt {
    const asset = assetAt(find(committed, tenantId, id), clock.nowMs(tenantId));
    if (asset.state === 'deleted') throw new DomainError('not_found', 'not_found', `asset ${id} was deleted: its contents went with it`);
    return asset;
  }

  /** Room for `bytes` more, within the in-progress bound and the quota, in the admitting unit. */
  function admit({ tables, tenantId, nowMs }: TenantUnit, bytes: number): void {
    const usage = tables.assets.usage(tenantId, nowMs);
    if (usage.importing >= MAX_IMPORTS_IN_PROGRESS) {
      throw conflict('imports_in_progress', `${usage.importing} imports are already in progress; wait for one to finish (GET /v1/assets/{id})`);
    }
    if (usage.storedBytes + usage.stagedBytes + bytes > config.assetQuotaBytes) {
      throw conflict('storage_quota_exceeded', `storing ${bytes} more bytes would pass this tenant's quota of ${config.assetQuotaBytes} (${usage.storedBytes} stored, ${usage.stagedBytes} staged); delete assets to make room`);
    }
  }

  /** What a keyed upload's earlier asset answers: the same asset for the same upload, else a conflict. */
  function replay(existing: AssetRow, upload: Upload, name: string): AssetRow {
    if (existing.state === 'deleted' || existing.state === 'failed') {
      throw conflict('idempotency_conflict', `Idempotency-Key "${upload.key}" made asset ${existing.id}, which is ${existing.state}; upload again under a new key`);
    }
    if (existing.sha256 !== upload.sha256 || existing.name !== name) {
      throw conflict('idempotency_conflict', `Idempotency-Key "${upload.key}" was already used for other bytes or another name (asset ${existing.id}); retry the original upload unchanged, or use a new key`);
    }
    return existing;
  }

  return {
    list(tenantId: string): AssetListing {
      const nowMs = clock.nowMs(tenantId);
      const usage = committed.assets.usage(tenantId, nowMs);
      return {
        assets: committed.assets.list(tenantId, LIST_LIMIT).map((row) => assetAt(row, nowMs)),
        storedBytes: usage.storedBytes,
        stagedBytes: usage.stagedBytes,
      };
    },

    get(tenantId: string, id: string): AssetAt {
      return assetAt(find(committed, tenantId, id), clock.nowMs(tenantId));
    },

    /**
     * POST /v1/assets/upload once the body has arrived whole and within the limit. A keyed retry
     * answers the asset its key made, without checking the archive again.
     */
    async upload(tenantId: string, upload: Upload): Promise<{ replayed: boolean; asset: AssetAt }> {
      const name = checkUploadName(upload.name ?? DEFAULT_UPLOAD_NAME);
      if (upload.data.length === 0) throw badRequest('empty_upload', 'the body is empty: send the file\'s bytes as application/octet-stream');
      if (upload.key !== undefined && upload.claimedSha256 === undefined) {
        throw badRequest('sha256_required', 'a keyed upload (Idempotency-Key) needs X-Nodus-SHA256: the SHA-256 of the exact body, in lower-case hex');
      }
      if (upload.claimedSha256 !== undefined && upload.claimedSha256 !== upload.sha256) {
        throw badRequest('sha256_mismatch', `X-Nodus-SHA256 is ${upload.claimedSha256} but the body received hashes to ${upload.sha256}; nothing was stored`);
      }
      const { key } = upload;
      const earlier = key === undefined ? undefined : committed.assets.byKey(tenantId, key);
      if (earlier) return { replayed: true, asset: assetAt(replay(earlier, upload, name), clock.nowMs(tenantId)) };

      const archive = archiveKindOf(name);
      const files: ArchiveEntry[] | null = archive
        ? await listArchive(archive, upload.data, name, MAX_EXPANSION * config.maxImportBytes)
        : null;
      return units.atNow(tenantId, (unit) => {
        const { nowMs, tables } = unit;
        // A duplicate that committed while this one was being read.
        const raced = key === undefined ? undefined : tables.assets.byKey(tenantId, key);
        if (raced) return { replayed: true, asset: assetAt(replay(raced, upload, name), nowMs) };
        admit(unit, upload.data.length);
        const row: AssetRow = {
          ...blankRow(tenantId, nowMs),
          kind: 'upload',
          name,
          state: 'ready',
          revision: '1',
          sha256: upload.sha256,
          bytes: upload.data.length,
          readyAtMs: nowMs,
          archive,
          files: files && JSON.stringify(files),
          idempotencyKey: key ?? null,
        };
        tables.assets.insert(row, upload.data);
        return { replayed: false, asset: assetAt(row, nowMs) };
      });
    },

    /**
     * POST /v1/assets/import: ready at once, importing for a database query (ready on the tenant's
     * virtual clock), or an earlier export of the same query reused.
     */
    import(tenantId: string, body: AssetImportRequest): { outcome: ImportOutcome; asset: AssetAt } {
      const plan = planImport(body);
      return units.atNow(tenantId, (unit) => {
        const { nowMs, tables } = unit;
        if (plan.query) checkQueryConnection(tables, tenantId, plan.query.connectionId, plan.query.branch);
        if (plan.query?.reuse) {
          const earlier = tables.assets.reusable(tenantId, plan.query.hash, nowMs);
          if (earlier) return { outcome: 'reused' as const, asset: assetAt(earlier, nowMs) };
        }
        const content = standInContent(plan);
        admit(unit, content.length);
        const row = importRow(tenantId, plan, content, nowMs);
        tables.assets.insert(row, content);
        return { outcome: plan.query ? 'importing' as const : 'ready' as const, asset: assetAt(row, nowMs) };
      });
    },

    /** 409 asset_in_use while it is importing or an active workload names it; deleting twice is harmless. */
    delete(tenantId: string, id: string): void {
      units.atNow(tenantId, (unit) => {
        const { nowMs } = unit;
        const asset = assetAt(find(unit.tables, tenantId, id), nowMs);
        if (asset.state === 'deleted') return;
        if (asset.state === 'importing') throw conflict('asset_in_use', `asset ${id} is still importing; delete it once it is ready or failed`);
        for (const holder of unit.tables.assets.holders(id)) {
          if (isTerminal(holder.status)) continue;
          const row = unit.tables.workloads.get(tenantId, holder.id);
          // Materialised first: a workload that ended in virtual time no longer holds it.
          if (row && !isTerminal(unit.materialise(row).status)) {
            throw conflict('asset_in_use', `asset ${id} is used by workload ${holder.id}, which has not ended; delete the asset after it completes, fails or is cancelled`);
          }
        }
        unit.tables.assets.markDeleted(id, nowMs);
      });
    },

    /** For the control API: the bytes as stored. */
    content(tenantId: string, id: string): { asset: AssetAt; data: Buffer } {
      const asset = present(tenantId, id);
      return { asset, data: committed.assets.contents(id) };
    },

    /** For the control API: an archive's members as checked at upload (none for a plain file). */
    files(tenantId: string, id: string): { asset: AssetAt; files: ArchiveEntry[] } {
      const asset = present(tenantId, id);
      return { asset, files: asset.row.files === null ? [] : JSON.parse(asset.row.files) as ArchiveEntry[] };
    },

    /** For the control API: an import in progress ends as failed, with a value-free error text. */
    fail(tenantId: string, id: string, error: string | undefined): AssetAt {
      return units.atNow(tenantId, ({ nowMs, tables }) => {
        const asset = assetAt(find(tables, tenantId, id), nowMs);
        if (asset.state !== 'importing') {
          throw conflict('invalid_asset_state', `asset ${id} is ${asset.state}; only an import in progress can be failed`);
        }
        tables.assets.fail(id, error ?? 'the query export failed; check the query and the connection, then import again');
        return assetAt(find(tables, tenantId, id), nowMs);
      });
    },
  };
}

function blankRow(tenantId: string, nowMs: number): Omit<AssetRow, 'kind' | 'name' | 'state' | 'revision' | 'sha256' | 'bytes'> {
  return {
    id: newAssetId(),
    tenantId,
    createdAtMs: nowMs,
    readyAtMs: null,
    deletedAtMs: null,
    error: null,
    archive: null,
    files: null,
    idempotencyKey: null,
    queryHash: null,
    export: null,
  };
}

function importRow(tenantId: string, plan: PlannedImport, content: Buffer, nowMs: number): AssetRow {
  const common = { ...blankRow(tenantId, nowMs), kind: plan.kind, name: plan.name, revision: plan.revision, sha256: sha256Hex(content), bytes: content.length };
  if (!plan.query) return { ...common, state: 'ready', readyAtMs: nowMs };
  const { connectionId, branch, format, hash } = plan.query;
  return {
    ...common,
    state: 'importing',
    readyAtMs: nowMs + QUERY_EXPORT_SECONDS * 1000,
    queryHash: hash,
    export: JSON.stringify({ id: newQueryExportId(), connection_id: connectionId, branch, format }),
  };
}

export type AssetService = ReturnType<typeof createAssetService>;
