import type { Asset, AssetList, ConnectionExport } from '../../../openapi/assets.js';
import type { Config } from '../../config.js';
import type { AssetListing } from '../../domain/assets/service.js';
import type { AssetAt } from '../../domain/assets/state.js';
import { isoTime } from '../../domain/clock.js';

interface ExportSettings {
  id: string;
  connection_id: string;
  branch: string;
  format: ConnectionExport['format'];
}

/** A query export's progress: pending, then running for the second half of its time, ready; a failed one is cleaned up. */
function exportView(asset: AssetAt, settings: ExportSettings): ConnectionExport {
  const { row, state, nowMs } = asset;
  const ready = state === 'ready' || state === 'deleted';
  const halfway = row.readyAtMs === null ? Infinity : (row.createdAtMs + row.readyAtMs) / 2;
  return {
    ...settings,
    asset_id: row.id,
    query_hash: row.queryHash ?? '',
    // The stand-in content is a manifest, not rows.
    row_count: 0,
    bytes: ready ? row.bytes : 0,
    created_at: isoTime(row.createdAtMs),
    state: ready ? 'ready' : state === 'failed' ? 'cleanup' : nowMs < halfway ? 'pending' : 'running',
  };
}

/** Metadata only: the contents are never served by /v1. Sizes and the hash count once the asset is ready. */
export function assetView(asset: AssetAt): Asset {
  const { row, state } = asset;
  const done = state === 'ready' || state === 'deleted';
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    state,
    revision: row.revision,
    sha256: done ? row.sha256 : '',
    stored_bytes: state === 'ready' ? row.bytes : 0,
    imported_bytes: done ? row.bytes : 0,
    created_at: isoTime(row.createdAtMs),
    ready_at: done && row.readyAtMs !== null ? isoTime(row.readyAtMs) : null,
    deleted_at: row.deletedAtMs === null ? null : isoTime(row.deletedAtMs),
    ...(row.export === null ? {} : { export: exportView(asset, JSON.parse(row.export) as ExportSettings) }),
    ...(state === 'failed' && row.error !== null ? { error: row.error } : {}),
  };
}

export function assetListView(listing: AssetListing, config: Pick<Config, 'maxImportBytes' | 'assetQuotaBytes'>): AssetList {
  return {
    assets: listing.assets.map(assetView),
    max_import_bytes: config.maxImportBytes,
    storage_quota_bytes: config.assetQuotaBytes,
    staged_bytes: listing.stagedBytes,
    stored_bytes: listing.storedBytes,
    billing_enabled: false,
    upload_idempotency: true,
  };
}
