import type { z } from 'zod';
import type { CustomerRouteSummary, Meter, Workload, WorkloadListItem } from '../../../openapi/workloads.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { isoTime } from '../clock.js';
import { checkpoints } from './checkpoints.js';
import type { RunContext } from './run.js';
import { stateAt } from '../../simulator/index.js';
import { estimateRun } from '../../simulator/estimate.js';
import type { SimSpec } from '../../simulator/types.js';

/*
 * The workload as its owner sees it at a moment: the domain's description of a run, which
 * GET /v1/workloads/{id} answers and a webhook delivery carries. The delivery fixes it in the
 * transaction of the status change it announces, so it is a domain value, not an HTTP view.
 */

const usd = (n: number) => Math.round(n * 1e6) / 1e6;

/** The route the mock's one region and fitting offer give every run; routing placements repeat it. */
export function routeSummary(payload: { requirements?: Record<string, unknown> }, spec: SimSpec): z.infer<typeof CustomerRouteSummary> {
  const requirements = payload.requirements ?? {};
  const estimate = estimateRun(spec);
  return {
    offer_id: `mock-${String(requirements.gpu ?? requirements.compute_class ?? 'accelerator').toLowerCase()}-1`,
    compute_class: String(requirements.compute_class || 'accelerator'),
    fit_class: 'fits',
    region: 'mock-local-1',
    price_usd_hour: spec.usdPerHour,
    interruptible: false,
    expected_cost_usd: estimate.computeCostUsd.high,
    expected_hours: Math.round((estimate.completionSeconds.high / 3600) * 1e4) / 1e4,
  };
}

/**
 * Spend the SDK can read: while running it accrues, once the run has ended it is settled
 * (compute only; the mock charges no platform fee).
 */
function meterOf(row: WorkloadRow, rateUsdHour: number, terminal: boolean): z.infer<typeof Meter> {
  const spend = usd(row.spendUsd);
  return {
    settled_usd: terminal ? spend : 0,
    accruing_usd: terminal ? 0 : spend,
    accruing_rate_usd_hour: terminal ? 0 : rateUsdHour,
    total_now_usd: spend,
    as_of: isoTime(row.materialisedToMs),
    charge_state: terminal ? 'final' : 'estimated',
    ...(terminal ? { final_charge_usd: spend } : {}),
    compute_settled_usd: terminal ? spend : 0,
    compute_accruing_usd: terminal ? 0 : spend,
    platform_fee_settled_usd: 0,
    platform_fee_accruing_usd: 0,
  };
}

/** GET /v1/workloads/{id}: the row as materialised, with the simulator's view of its stage. */
export function workloadView(row: WorkloadRow, ctx: RunContext): z.infer<typeof Workload> {
  const state = stateAt(ctx.spec, ctx.interventions, row.materialisedToMs, ctx.timeline);
  const payload = JSON.parse(row.payload);
  const latest = checkpoints(row, ctx).at(-1);
  return {
    id: row.id,
    tenant_id: row.tenantId,
    status: row.status,
    revision: row.revision,
    spend_usd: usd(row.spendUsd),
    created_at: isoTime(row.createdAtMs),
    updated_at: isoTime(row.updatedAtMs),
    payload,
    route: routeSummary(payload, ctx.spec),
    latest_checkpoint: latest
      ? { manifest_id: latest.manifestId, generation: latest.generation, sequence: latest.sequence, created_at: isoTime(latest.atMs) }
      : null,
    stages: [{ ...state.stage, continuity_mode: payload.continuity?.mode || 'checkpointed' }],
    meter: meterOf(row, state.accruingRateUsdHour, state.terminal),
    unit_metrics: null,
    links: [],
    sink_error: '',
  };
}

export function listItemView(row: WorkloadRow, rateUsdHour: number, terminal: boolean): z.infer<typeof WorkloadListItem> {
  return {
    id: row.id,
    status: row.status,
    spend_usd: usd(row.spendUsd),
    revision: row.revision,
    created_at: isoTime(row.createdAtMs),
    updated_at: isoTime(row.updatedAtMs),
    meter: meterOf(row, rateUsdHour, terminal),
    owner_user_id: null,
    ...(row.name ? { name: row.name.slice(0, 120) } : {}),
    links: [],
  };
}
