import type { WorkloadPayload } from '../../../openapi/workload-payload.js';
import type { Tables, TenantUnit } from '../unit.js';
import { badRequest } from '../errors.js';
import { assetAt } from './state.js';

/** Where a payload names an asset, as the field path a 400 points at. */
function namedAssets(p: WorkloadPayload): { field: string; id: string }[] {
  const named: { field: string; id: string }[] = [];
  if (p.source?.asset_id) named.push({ field: 'source.asset_id', id: p.source.asset_id });
  (p.stages ?? []).forEach((stage, i) => {
    if (stage.source.asset_id) named.push({ field: `stages.${i}.source.asset_id`, id: stage.source.asset_id });
  });
  (p.inputs ?? []).forEach((input, i) => {
    if (input.asset_id) named.push({ field: `inputs.${i}.asset_id`, id: input.asset_id });
  });
  return named;
}

/** What an asset check reads: an admission's unit's tables, or committed rows where it runs in no unit. */
export interface AssetReads {
  assets: Pick<Tables['assets'], 'get'>;
}

/**
 * Every asset a workload names must be this tenant's and ready: unknown, deleted or another
 * tenant's is 400 asset_not_found, importing or failed 400 asset_not_ready. The real service does
 * not say how it answers these; a 400 is what the SDK reads as a ValidationError, where a 404 would
 * read as a missing workload and a 409 as an idempotency conflict. Answers the ids to hold.
 */
export function checkWorkloadAssets(rows: AssetReads, tenantId: string, payload: WorkloadPayload, nowMs: number): Set<string> {
  const ids = new Set<string>();
  for (const { field, id } of namedAssets(payload)) {
    // The schema has checked the id's shape, so it is safe to look up.
    const row = rows.assets.get(tenantId, id);
    if (!row || row.state === 'deleted') {
      throw badRequest('asset_not_found', `body.${field}: no asset ${id} in this tenant (upload or import it first: POST /v1/assets/upload)`);
    }
    const { state } = assetAt(row, nowMs);
    if (state !== 'ready') {
      throw badRequest('asset_not_ready', `body.${field}: asset ${id} is ${state}; a workload can use it once it is ready`);
    }
    ids.add(id);
  }
  return ids;
}

/** The admitted workload holds its assets until it ends; call inside the admitting transaction. */
export function holdAssets(unit: TenantUnit, workloadId: string, assetIds: Set<string>): void {
  if (assetIds.size > 0) unit.tables.assets.hold(workloadId, assetIds);
}
