import type { Artifact, CustomerLedgerEntry, RoutingPlacement, Settlement } from '../../../openapi/workloads.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { DERIVED_IDS } from '../ids.js';
import { checkpoints } from './checkpoints.js';
import { isoTime } from '../clock.js';
import { firstAfter } from './materialise.js';
import type { RunContext } from './run.js';
import { workloadOutputs } from './outputs.js';
import { spendsAt } from '../../simulator/index.js';
import { isTerminal } from '../../simulator/types.js';
import { routeSummary } from './view.js';
import type { DomainContext } from '../context.js';

/**
 * The records a workload accumulates besides its events, all read from its timeline up to its
 * materialised time: checkpoint artifacts, the customer ledger and the routing placements. Money
 * is added up in integer micro-dollars so that entries and placements sum to spend_usd exactly.
 */

const micros = (usd: number) => Math.round(usd * 1e6);
const HOUR_MS = 3_600_000;

/** The time the run's spend stops growing by now: its end once ended, else its materialised time. */
function spendEndMs(row: WorkloadRow, ctx: RunContext): number {
  const end = ctx.timeline.endAtMs;
  return end !== null && end <= row.materialisedToMs ? end : row.materialisedToMs;
}

export function artifacts(row: WorkloadRow, ctx: RunContext): Artifact[] {
  return checkpoints(row, ctx).map((c) => ({
    manifest_id: c.manifestId,
    stage_id: c.stageId,
    generation: c.generation,
    sequence: c.sequence,
    manifest: c.manifest,
    created_at: isoTime(c.atMs),
  }));
}

/**
 * The ledger: one `customer_charge` credit per billing hour (counted from creation) in which
 * compute was billed, the current hour included while it accrues, so the credits always add up
 * to spend_usd. nodus-mock charges no platform fee (the meter shows none), so there are no
 * `platform_fee` entries. The settlement is open while the run can still spend and closes at its
 * terminal time with the balance it owes.
 */
export function ledger(row: WorkloadRow, ctx: RunContext): { entries: CustomerLedgerEntry[]; settlement: Settlement } {
  const { spec } = ctx;
  const endMs = spendEndMs(row, ctx);
  const closed = isTerminal(row.status);
  const bounds: number[] = [];
  for (let t = spec.createdAtMs; t < endMs; t += HOUR_MS) bounds.push(t);
  bounds.push(endMs);
  const spent = spendsAt(spec, ctx.timeline, bounds).map(micros);
  const correlationId = DERIVED_IDS.stl(row.id);
  const entries: CustomerLedgerEntry[] = [];
  for (let k = 1; k < bounds.length; k++) {
    const charged = spent[k] - spent[k - 1];
    if (charged <= 0) continue;
    const [from, to] = [bounds[k - 1], bounds[k]];
    entries.push({
      id: DERIVED_IDS.led(row.id, k),
      correlation_id: correlationId,
      entry_type: 'customer_charge',
      debit_usd: 0,
      credit_usd: charged / 1e6,
      currency: 'USD',
      evidence: {
        kind: 'compute',
        period_start: isoTime(from),
        period_end: isoTime(from + HOUR_MS),
        billed_until: isoTime(to),
        usd_per_hour: spec.usdPerHour,
        accruing: !closed && to === endMs,
      },
      created_at: isoTime(to),
    });
  }
  return {
    entries,
    settlement: {
      status: closed ? 'closed' : 'open',
      balance_usd: spent[spent.length - 1] / 1e6,
      correlation_id: correlationId,
      closed_at: closed ? isoTime(endMs) : null,
    },
  };
}

interface Span {
  generation: number;
  /** Where its share of the spend starts: creation for the first, the interruption for later ones. */
  fromMs: number;
  provisionedAtMs: number;
  runningAtMs: number | null;
  interruptedAtMs: number | null;
  recoveredAtMs: number | null;
  endedAtMs: number | null;
  outcome: string;
}

/** One span per generation that held compute: from provisioning (or the recovery that replaced it) to its end. */
function placementSpans(row: WorkloadRow, ctx: RunContext): Span[] {
  const spans: Span[] = [];
  const items = ctx.timeline.items;
  let recoveringAtMs: number | null = null;
  for (let i = 0, end = firstAfter(items, row.materialisedToMs); i < end; i++) {
    const item = items[i];
    if (item.kind !== 'status') continue;
    let current = spans.at(-1);
    if (item.generation > (current?.generation ?? item.generation) && recoveringAtMs !== null) {
      // Back from a recovery: the replacement was provisioned when the old placement was lost.
      Object.assign(current!, { interruptedAtMs: recoveringAtMs, recoveredAtMs: item.atMs, endedAtMs: recoveringAtMs, outcome: 'interrupted' });
      current = { generation: item.generation, fromMs: recoveringAtMs, provisionedAtMs: recoveringAtMs, runningAtMs: null, interruptedAtMs: null, recoveredAtMs: null, endedAtMs: null, outcome: 'active' };
      spans.push(current);
    }
    if (item.status === 'provisioning' && !current) {
      current = { generation: item.generation, fromMs: ctx.spec.createdAtMs, provisionedAtMs: item.atMs, runningAtMs: null, interruptedAtMs: null, recoveredAtMs: null, endedAtMs: null, outcome: 'active' };
      spans.push(current);
    }
    if (item.status === 'recovering') recoveringAtMs = item.atMs;
    if (item.status === 'running' && current && current.runningAtMs === null) current.runningAtMs = item.atMs;
    if (isTerminal(item.status) && current) Object.assign(current, { endedAtMs: item.atMs, outcome: item.status });
  }
  return spans;
}

/**
 * Routing placements ordered by stage then generation: the run's one stage gets a placement when
 * compute is first provisioned, and a recovery adds one for the new generation, marking the old
 * one interrupted and superseded. A freeze keeps its generation, so it adds none; the placement's
 * actual hours leave out the frozen span. Actual costs add up to spend_usd.
 */
export function routing(deps: DomainContext, row: WorkloadRow, ctx: RunContext): RoutingPlacement[] {
  const { spec } = ctx;
  const spans = placementSpans(row, ctx);
  if (spans.length === 0) return [];
  const payload = JSON.parse(row.payload) as { requirements?: Record<string, unknown>; continuity?: { mode?: string } };
  const route = routeSummary(payload, spec);
  const saved = checkpoints(row, ctx);
  const endMs = spendEndMs(row, ctx);
  const spent = spendsAt(spec, ctx.timeline, [...spans.map((s) => s.fromMs), endMs]).map(micros);
  const outputBytes = workloadOutputs(deps, row).reduce((sum, o) => sum + o.content.length, 0);
  return spans.map((s, k): RoutingPlacement => {
    const cost = (spent[k + 1] - spent[k]) / 1e6;
    const own = saved.filter((c) => c.generation === s.generation);
    const restoredFrom = k > 0 ? saved.filter((c) => c.atMs <= spans[k - 1].interruptedAtMs!).at(-1) : undefined;
    const last = k === spans.length - 1;
    return {
      workload_id: row.id,
      stage_id: spec.stageId,
      generation: s.generation,
      sku: route.offer_id,
      fit_class: route.fit_class,
      region: route.region,
      compute_class: route.compute_class,
      continuity_mode: payload.continuity?.mode || 'checkpointed',
      interruptible: false,
      placement: 'on_demand',
      provision_attempts: 1,
      provisioned_at: isoTime(s.provisionedAtMs),
      running_at: s.runningAtMs === null ? null : isoTime(s.runningAtMs),
      boot_seconds: s.runningAtMs === null ? null : (s.runningAtMs - s.provisionedAtMs) / 1000,
      boot_ok: s.runningAtMs === null ? null : true,
      price_usd_hour: spec.usdPerHour,
      predicted_cost_usd: route.expected_cost_usd ?? 0,
      predicted_hours: route.expected_hours ?? 0,
      predicted_boot_seconds: spec.simulation.provisioning_seconds,
      predicted_interrupt_rate: 0,
      actual_cost_usd: cost,
      actual_hours: Math.round((cost / spec.usdPerHour) * 1e6) / 1e6,
      checkpoints: own.length,
      checkpoint_bytes: own.reduce((sum, c) => sum + c.bytes, 0),
      output_bytes: last ? outputBytes : 0,
      ...(restoredFrom ? { restored_from: restoredFrom.manifestId, restore_bytes: restoredFrom.bytes } : {}),
      interrupted_at: s.interruptedAtMs === null ? null : isoTime(s.interruptedAtMs),
      ...(s.interruptedAtMs === null ? {} : { interrupt_trigger: 'recover requested through POST /_mock/workloads/{id}/recover' }),
      recovery_seconds: s.recoveredAtMs === null || s.interruptedAtMs === null ? null : (s.recoveredAtMs - s.interruptedAtMs) / 1000,
      superseded_by: last ? null : spans[k + 1].generation,
      ended_at: s.endedAtMs === null ? null : isoTime(s.endedAtMs),
      outcome: s.outcome,
    };
  });
}
