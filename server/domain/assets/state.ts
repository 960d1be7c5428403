import type { AssetRow } from '../../../store/assets.js';

export type AssetState = 'importing' | 'ready' | 'failed' | 'deleted';

/** An asset as of one virtual instant of its tenant. */
export interface AssetAt {
  row: AssetRow;
  state: AssetState;
  nowMs: number;
}

/**
 * An import in progress is stored with the instant it will be ready, and is ready from then on:
 * reading never has to write, and the tenant's clock (manual or scaled) decides, as it does for
 * workloads.
 */
export function assetAt(row: AssetRow, nowMs: number): AssetAt {
  const due = row.state === 'importing' && row.readyAtMs !== null && row.readyAtMs <= nowMs;
  return { row, state: due ? 'ready' : row.state, nowMs };
}
