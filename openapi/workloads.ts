import { z } from 'zod';
import { dateTime, jsonObject } from './primitives.js';
import { built, lazy } from './lazy.js';
import { WorkloadPayload } from './workload-payload.js';

/**
 * Reads of a workload: what GET /v1/workloads and its sub-resources answer (the submission is
 * openapi/workload-payload.ts). Objects the contract leaves open stay open (z.looseObject) so
 * unknown keys survive validation and serialisation; the ones it closes are strict.
 */
export const Meter = lazy(() => z
  .looseObject({
    settled_usd: z.number().optional(),
    accruing_usd: z.number().optional(),
    accruing_rate_usd_hour: z.number().optional(),
    total_now_usd: z.number().optional(),
    as_of: built(dateTime).optional(),
    final_charge_usd: z.number().min(0).optional(),
    charge_state: z.enum(['estimated', 'final']).optional(),
    compute_settled_usd: z.number().meta({ default: 0 }).optional(),
    platform_fee_settled_usd: z.number().meta({ default: 0 }).optional(),
    subscription_settled_usd: z.number().meta({ default: 0 }).optional(),
    storage_settled_usd: z.number().meta({ default: 0 }).optional(),
    model_settled_usd: z.number().meta({ default: 0 }).optional(),
    shared_settled_usd: z.number().meta({ default: 0 }).optional(),
    compute_accruing_usd: z.number().meta({ default: 0 }).optional(),
    platform_fee_accruing_usd: z.number().meta({ default: 0 }).optional(),
  })
  .meta({ id: 'Meter' }));
export type Meter = z.infer<typeof Meter>;

export const ResourceAttributes = lazy(() => z
  .looseObject({
    vcpus: z.number().optional(),
    host_memory_gb: z.number().optional(),
    device_memory_gb: z.number().optional(),
    disk_gb: z.number().optional(),
    network_gbps: z.number().optional(),
    accelerator: z.string().optional(),
    gpu_count: z.int().min(0).optional(),
  })
  .meta({ id: 'ResourceAttributes' }));

export const CostBreakdown = lazy(() => z
  .looseObject({
    runtime_hours: z.number().optional(),
    provision_hours: z.number().optional(),
    billed_hours: z.number().optional(),
    billing_increment_min: z.number().optional(),
    compute_usd: z.number().optional(),
    expected_reclaims: z.number().optional(),
    lost_hours_per_reclaim: z.number().optional(),
    reclaim_usd: z.number().optional(),
    interruption_usd: z.number().optional(),
    reserve_usd: z.number().optional(),
    total_usd: z.number().optional(),
  })
  .meta({ id: 'CostBreakdown' }));

export const ScoreBreakdown = lazy(() => z
  .looseObject({
    fit: z.number().optional(),
    time_to_result: z.number().optional(),
    cost_to_complete: z.number().optional(),
    recovery_value: z.number().optional(),
    health: z.number().optional(),
    total: z.number().optional(),
  })
  .meta({ id: 'ScoreBreakdown' }));

export const CustomerFallbackBranch = lazy(() => z
  .looseObject({
    failure_class: z.string().optional(),
    expected_recovery_hours: z.number().optional(),
    expected_cost_usd: z.number().nullable().optional(),
  })
  .meta({ id: 'CustomerFallbackBranch' }));

export const CustomerRejectedOffer = lazy(() => z
  .looseObject({ reason: z.string().optional() })
  .meta({ id: 'CustomerRejectedOffer' }));

export const CustomerRouteSummary = lazy(() => z
  .looseObject({
    fit_class: z.string().optional(),
    compute_class: z.string().optional(),
    resources: built(ResourceAttributes).optional(),
    memory_gb: z.number().optional(),
    offer_id: z.string().optional(),
    price_usd_hour: z.number().optional(),
    interruptible: z.boolean().optional(),
    region: z.string().optional(),
    expected_cost_usd: z.number().nullable().optional(),
    expected_hours: z.number().nullable().optional(),
    remaining_budget_usd: z.number().optional(),
    cost: built(CostBreakdown).nullable().optional(),
    score_breakdown: built(ScoreBreakdown).optional(),
    fallback_graph: z.array(built(CustomerFallbackBranch)).nullable().optional(),
    rejected: z.array(built(CustomerRejectedOffer)).nullable().optional(),
  })
  .meta({ id: 'CustomerRouteSummary' }));

export const CheckpointSummary = lazy(() => z
  .looseObject({
    manifest_id: z.string().optional(),
    generation: z.int().optional(),
    sequence: z.int().optional(),
    created_at: built(dateTime).optional(),
  })
  .meta({ id: 'CheckpointSummary' }));

export const StageRunSummary = lazy(() => z
  .looseObject({
    id: z.string().optional(),
    status: z.string().optional(),
    continuity_mode: z.string().optional(),
    completed_units: z.int().optional(),
    total_units: z.int().optional(),
    last_loss: z.number().nullable().optional(),
    metric_rate: z.number().nullable().optional(),
    metric_step: z.int().nullable().optional(),
    latest_manifest: built(CheckpointSummary).nullable().optional(),
    metric_total_steps: z.int().optional(),
    metric_epoch: z.number().optional(),
    metric_total_epochs: z.number().optional(),
  })
  .meta({ id: 'StageRunSummary' }));
export type StageRunSummary = z.infer<typeof StageRunSummary>;

export const UnitMetrics = lazy(() => z
  .looseObject({
    units_completed: z.int().min(0).optional(),
    p50_ms: z.number().min(0).nullable().optional(),
    p95_ms: z.number().min(0).nullable().optional(),
    cost_per_unit_usd: z.number().min(0).nullable().optional(),
    dropped_observations: z.int().min(0).optional(),
  })
  .meta({ id: 'UnitMetrics' }));

export const WorkloadLink = lazy(() => z
  .looseObject({ kind: z.enum(['wandb']), url: z.url() })
  .meta({ id: 'WorkloadLink' }));

export const CheckpointPreparationSummary = lazy(() => z
  .looseObject({
    stage_id: z.string().optional(),
    state: z.enum(['pending', 'ready', 'failed', 'cancelled']).optional(),
    proposed_integration: z.enum(['none', 'hf-trainer-v1']).optional(),
    ready_at: built(dateTime).nullable().optional(),
  })
  .meta({ id: 'CheckpointPreparationSummary' }));

export const DistributedObservedProgress = lazy(() => z
  .looseObject({
    completed_units: z.int(),
    total_units: z.int(),
    last_loss: z.number().optional(),
    metric_rate: z.number().optional(),
    metric_step: z.int().optional(),
    metric_total_steps: z.int().optional(),
    metric_epoch: z.number().optional(),
    metric_total_epochs: z.number().optional(),
    observed_at: built(dateTime),
  })
  .meta({ id: 'DistributedObservedProgress' }));

export const DistributedCustomerMember = lazy(() => z
  .looseObject({
    member_id: z.string(),
    node_rank: z.int(),
    ready: z.boolean(),
    started: z.boolean(),
    active: z.boolean(),
    exit_code: z.int().optional(),
    observed_progress: built(DistributedObservedProgress).optional(),
  })
  .meta({ id: 'DistributedCustomerMember' }));

export const DistributedCustomerGroup = lazy(() => z
  .looseObject({
    group_id: z.string(),
    stage_id: z.string(),
    generation: z.int(),
    phase: z.enum(['assembling', 'prepared', 'starting', 'running', 'stopping', 'closed']),
    outcome: z.enum(['completed', 'failed', 'cancelled']).optional(),
    cleanup_state: z.enum(['pending', 'complete']),
    required_members: z.int(),
    ready_members: z.int(),
    active_members: z.int(),
    members: z.array(built(DistributedCustomerMember)),
  })
  .meta({ id: 'DistributedCustomerGroup' }));

export const Workload = lazy(() => z
  .looseObject({
    id: z.string().optional(),
    tenant_id: z.string().optional(),
    status: z.string().optional().describe('open vocabulary: clients tolerate values they do not know'),
    revision: z.int().optional(),
    spend_usd: z.number().optional(),
    created_at: built(dateTime).optional(),
    updated_at: built(dateTime).optional(),
    payload: built(WorkloadPayload).optional(),
    route: built(CustomerRouteSummary).nullable().optional(),
    latest_checkpoint: built(CheckpointSummary).nullable().optional(),
    stages: z.array(built(StageRunSummary)).nullable().optional(),
    meter: built(Meter).optional(),
    unit_metrics: built(UnitMetrics).nullable().optional(),
    links: z.array(built(WorkloadLink)).optional(),
    sink_error: z.string().optional(),
    checkpoint_preparation: z.array(built(CheckpointPreparationSummary)).optional(),
    distributed: z.array(built(DistributedCustomerGroup)).optional().describe('detail reads only'),
  })
  .meta({ id: 'Workload' }));
export type Workload = z.infer<typeof Workload>;

export const WorkloadListItem = lazy(() => z
  .looseObject({
    id: z.string().optional(),
    status: z.string().optional(),
    spend_usd: z.number().optional(),
    revision: z.int().optional(),
    created_at: built(dateTime).optional(),
    updated_at: built(dateTime).optional(),
    meter: built(Meter).optional(),
    owner_user_id: z.string().nullable().optional(),
    name: z.string().max(120).optional(),
    links: z.array(built(WorkloadLink)).optional(),
  })
  .meta({ id: 'WorkloadListItem' }));
export type WorkloadListItem = z.infer<typeof WorkloadListItem>;

export const WorkloadEvent = lazy(() => z
  .looseObject({
    id: z.int().optional().describe('sequence number; the `after` cursor of the events route'),
    event_id: z.string().optional(),
    event_type: z.string().optional(),
    payload: built(jsonObject).nullable().optional(),
    created_at: built(dateTime).optional(),
  })
  .meta({ id: 'WorkloadEvent' }));
export type WorkloadEvent = z.infer<typeof WorkloadEvent>;

export const Output = lazy(() => z
  .looseObject({
    name: z.string(),
    stage_id: z.string(),
    sha256: z.string(),
    bytes: z.int(),
    download: z.string(),
    sink_state: z.enum(['pending', 'loading', 'loaded', 'failed']).optional(),
    sink_rows: z.int().min(0).optional(),
    sink_error: z.string().optional(),
    group_id: z.string().optional(),
    member_id: z.string().optional(),
  })
  .meta({ id: 'Output' }));
export type Output = z.infer<typeof Output>;

export const DistributedLogChunk = lazy(() => z
  .looseObject({
    group_id: z.string(),
    member_id: z.string(),
    node_rank: z.int(),
    stage_id: z.string(),
    generation: z.int(),
    offset: z.int(),
    text: z.string(),
    data_base64: z.base64(),
  })
  .meta({ id: 'DistributedLogChunk' }));
export type DistributedLogChunk = z.infer<typeof DistributedLogChunk>;

// The contract inlines the single-machine chunk instead of naming it.
const liveLogChunk = lazy(() => z.looseObject({ id: z.int(), stage_id: z.string(), generation: z.int(), text: z.string() }));

export const LiveLogPage = lazy(() => z
  .looseObject({
    chunks: z.array(z.union([built(liveLogChunk), built(DistributedLogChunk)])),
    next_cursor: z.string(),
    truncated: z.boolean(),
    group_id: z.string().optional(),
    member_id: z.string().optional(),
    expired: z.boolean().optional(),
  })
  .meta({ id: 'LiveLogPage' }));
export type LiveLogPage = z.infer<typeof LiveLogPage>;

export const Artifact = lazy(() => z
  .looseObject({
    manifest_id: z.string().optional(),
    stage_id: z.string().optional(),
    generation: z.int().optional(),
    sequence: z.int().optional(),
    manifest: built(jsonObject).optional(),
    created_at: built(dateTime).optional(),
  })
  .meta({ id: 'Artifact' }));
export type Artifact = z.infer<typeof Artifact>;

export const CustomerLedgerEntry = lazy(() => z
  .looseObject({
    id: z.string().optional(),
    correlation_id: z.string().optional(),
    entry_type: z.string().optional(),
    debit_usd: z.number().optional(),
    credit_usd: z.number().optional(),
    currency: z.string().optional(),
    evidence: built(jsonObject).nullable().optional(),
    created_at: built(dateTime).optional(),
  })
  .meta({ id: 'CustomerLedgerEntry' }));
export type CustomerLedgerEntry = z.infer<typeof CustomerLedgerEntry>;

export const Settlement = lazy(() => z
  .looseObject({
    status: z.string().optional(),
    balance_usd: z.number().optional(),
    correlation_id: z.string().optional(),
    closed_at: built(dateTime).nullable().optional(),
  })
  .meta({ id: 'Settlement' }));
export type Settlement = z.infer<typeof Settlement>;

export const RoutingPlacement = lazy(() => z
  .looseObject({
    workload_id: z.string().optional(),
    stage_id: z.string().optional(),
    generation: z.int().optional(),
    sku: z.string().optional(),
    fit_class: z.string().optional(),
    region: z.string().optional(),
    compute_class: z.string().optional(),
    continuity_mode: z.string().optional(),
    interruptible: z.boolean().optional(),
    placement: z.string().optional(),
    provision_attempts: z.int().optional(),
    provisioned_at: built(dateTime).optional(),
    running_at: built(dateTime).nullable().optional(),
    boot_seconds: z.number().nullable().optional(),
    boot_ok: z.boolean().nullable().optional(),
    price_usd_hour: z.number().optional(),
    predicted_cost_usd: z.number().optional(),
    predicted_hours: z.number().optional(),
    predicted_boot_seconds: z.number().optional(),
    predicted_interrupt_rate: z.number().optional(),
    actual_cost_usd: z.number().nullable().optional(),
    actual_hours: z.number().nullable().optional(),
    checkpoints: z.int().optional(),
    checkpoint_bytes: z.int().optional(),
    output_bytes: z.int().optional(),
    restore_bytes: z.int().optional(),
    restored_from: z.string().optional(),
    checkpoint_seconds: z.number().optional(),
    interrupted_at: built(dateTime).nullable().optional(),
    interrupt_trigger: z.string().optional(),
    lost_seconds: z.number().nullable().optional(),
    recovery_seconds: z.number().nullable().optional(),
    superseded_by: z.int().nullable().optional(),
    ended_at: built(dateTime).nullable().optional(),
    outcome: z.string().optional(),
  })
  .meta({ id: 'RoutingPlacement' }));
export type RoutingPlacement = z.infer<typeof RoutingPlacement>;

export const WorkloadFreeze = lazy(() => z
  .looseObject({
    id: z.string(),
    workload_id: z.string(),
    stage_id: z.string(),
    manifest_id: z.string().optional(),
    reason: z.string().optional(),
    generation: z.int().min(1),
    state: z.enum(['requested', 'releasing', 'frozen', 'resuming', 'resumed', 'failed']),
    requested_at: built(dateTime),
    frozen_at: built(dateTime).nullable(),
    retained_bytes: z.int().min(0).meta({ format: 'int64' }),
    storage_charge_micros: z.int().nullable(),
    storage_billing_status: z.enum(['retained_storage_not_separately_metered']),
  })
  .meta({ id: 'WorkloadFreeze' }));
export type WorkloadFreeze = z.infer<typeof WorkloadFreeze>;
