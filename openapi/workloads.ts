import { z } from 'zod';
import { dateTime, integerConst, integerEnum, jsonObject, sha256Hex } from './primitives.js';
import { RLMetadata } from './rl-recipes.js';
import { built, lazy } from './lazy.js';

/**
 * Workloads: what a submission carries and what reads of a workload answer. Objects the contract
 * leaves open stay open (z.looseObject) so unknown keys survive validation and serialisation; the
 * ones it closes are strict.
 */

// ---------------------------------------------------------------------------------------------
// Submission: the payload and its parts

const optimization = lazy(() => z
  .enum(['', 'automatic', 'lowest_cost', 'lower_cost', 'balanced', 'faster', 'fastest'])
  .meta({ deprecated: true }));

export const WorkloadSource = lazy(() => z
  .looseObject({
    image: z.string().meta({ default: 'python:3.11-slim' }).optional(),
    command: z.array(z.string()).nullable().optional(),
    asset_id: z.string().regex(/^(asset_[A-Za-z0-9-]{1,64})?$/).optional(),
  })
  .meta({ id: 'WorkloadSource' }));
export type WorkloadSource = z.infer<typeof WorkloadSource>;

export const BucketInput = lazy(() => z
  .strictObject({
    uri: z.string(),
    region: z.string(),
    bytes: z.int().min(0).max(1099511627776),
    sha256: built(sha256Hex),
    credential_source: z.enum(['team_webhook']),
  })
  .meta({ id: 'BucketInput' }));

/**
 * A named input: exactly one of an asset (optionally cached) or a bucket object.
 *
 * Registered as `WorkloadInputItem`, not the contract's `WorkloadInput`: fastify-type-provider-zod
 * v7 names the request-side copy of every component `<id>Input`, so `Workload`'s request copy
 * would collide with it and the document would not generate. COMPONENT_ALIASES records the rename.
 */
export const WorkloadInput = lazy(() => z
  .strictObject({
    name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/),
    uri: z.enum(['']).optional(),
    asset_id: z.string().regex(/^asset_[A-Za-z0-9-]{1,64}$/).optional(),
    cache: z.boolean().meta({ default: false }).optional(),
    bucket: built(BucketInput).optional(),
  })
  .superRefine((input, ctx) => {
    const hasAsset = input.asset_id !== undefined;
    const hasBucket = input.bucket !== undefined;
    if (hasAsset === hasBucket) {
      ctx.addIssue({ code: 'custom', path: [], message: 'an input needs exactly one of asset_id or bucket' });
    } else if (hasBucket && input.cache !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['cache'], message: 'cache applies to asset inputs only' });
    }
  })
  .meta({ id: 'WorkloadInputItem' }));
export type WorkloadInput = z.infer<typeof WorkloadInput>;

/** Our component id → the contract's, where the two differ (see WorkloadInput). */
export const COMPONENT_ALIASES: Record<string, string> = { WorkloadInputItem: 'WorkloadInput' };

export const DiLoCoProfile = lazy(() => z
  .strictObject({
    version: integerConst(1),
    islands: z.int().min(2).max(256),
    local_steps: z.int().min(1).max(1_000_000),
    outer_learning_rate: z.number().gt(0),
    outer_momentum: z.number().gt(0).lt(1),
    synchronization_timeout_seconds: z.int().min(1).max(3600),
  })
  .meta({ id: 'DiLoCoProfile' }));

export const TrainingDistribution = lazy(() => z
  .strictObject({
    mode: z.enum(['', 'standard', 'low_communication']).optional(),
    framework: z.enum(['pytorch', 'accelerate', 'deepspeed', 'jax', 'tensorflow', 'custom']),
    processes_per_node: z.int().min(0).max(64).optional(),
    geography: z.enum(['', 'single_region', 'cross_region']).optional(),
    config_file: z.string().max(1024).optional(),
    diloco: built(DiLoCoProfile).optional(),
  })
  .meta({ id: 'TrainingDistribution' }));

/**
 * Resource needs. `total_gpu_count` excludes `node_count` and `gpu_count`; a `distribution` needs
 * `processes_per_node >= 1` unless `total_gpu_count >= 2` lets the server derive it.
 */
export const Requirements = lazy(() => z
  .looseObject({
    optimization: built(optimization).optional(),
    disk_gb: z.number().min(0).optional(),
    vcpus: z.number().min(0).optional(),
    model: z.string().optional(),
    compute_class: z.enum(['', 'vm', 'accelerator']).optional(),
    dataset_bytes: z.int().min(0).optional(),
    peak_memory_gb: z.number().min(0).optional(),
    notes: z.string().optional(),
    gpu: z.string().optional(),
    expected_runtime_hours: z.number().meta({ deprecated: true }).optional(),
    gpu_count: integerEnum([1, 2, 4, 8]).optional(),
    gpu_interconnect: z.enum(['', 'any']).optional(),
    node_count: z.int().min(1).max(256).optional(),
    distribution: built(TrainingDistribution).optional(),
    total_gpu_count: z.int().min(1).max(2048).optional(),
  })
  .superRefine((req, ctx) => {
    if (req.total_gpu_count !== undefined) {
      for (const key of ['node_count', 'gpu_count'] as const) {
        if (req[key] !== undefined) {
          ctx.addIssue({ code: 'custom', path: [key], message: 'cannot be combined with total_gpu_count' });
        }
      }
    }
    const derivesProcesses = req.total_gpu_count !== undefined && req.total_gpu_count >= 2;
    const processes = req.distribution?.processes_per_node;
    if (req.distribution && !derivesProcesses && (processes === undefined || processes < 1)) {
      ctx.addIssue({
        code: 'custom',
        path: ['distribution', 'processes_per_node'],
        message: 'must be at least 1 unless total_gpu_count is 2 or more',
      });
    }
  })
  .meta({ id: 'Requirements' }));
export type Requirements = z.infer<typeof Requirements>;

export const Continuity = lazy(() => z
  .looseObject({
    mode: z.enum(['', 'checkpointed', 'restartable', 'ephemeral']).optional(),
    resume_on_interruption: z.boolean().meta({ default: true }).optional(),
    checkpoint_paths: z.array(z.string().min(1).max(512)).max(64).optional(),
    integration: z.enum(['', 'none', 'auto', 'hf-trainer-v1']).optional(),
  })
  .meta({ id: 'Continuity' }));
export type Continuity = z.infer<typeof Continuity>;

export const Outcome = lazy(() => z
  .looseObject({
    max_cost_usd: z.number().meta({ deprecated: true }).optional(),
    complete_by: z.string().optional().describe('RFC 3339 deadline'),
  })
  .meta({ id: 'Outcome' }));

export const Policy = lazy(() => z
  .looseObject({
    data_regions: z.array(z.string()).nullable().optional(),
    secret_refs: z.array(z.string()).max(32).optional(),
    egress_allow: z.array(z.string()).max(128).optional(),
  })
  .meta({ id: 'Policy' }));

/** Where to run: exactly one of a named pool or `prefer: any`. */
export const Placement = lazy(() => z
  .strictObject({
    pool: z.string().min(1).max(200).optional(),
    prefer: z.enum(['any']).optional(),
  })
  .refine((p) => (p.pool === undefined) !== (p.prefer === undefined), 'needs exactly one of pool or prefer')
  .meta({ id: 'Placement' }));

export const StageInput = lazy(() => z
  .looseObject({ name: z.string().optional(), from_stage: z.string().optional(), from_output: z.string().optional() })
  .meta({ id: 'StageInput' }));

export const OutputSink = lazy(() => z
  .strictObject({ connection: z.string(), table: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/) })
  .meta({ id: 'OutputSink' }));

export const OutputDeclaration = lazy(() => z
  .strictObject({ path: z.string(), sink: built(OutputSink).optional() })
  .meta({ id: 'OutputDeclaration' }));

// The contract says pattern `^[a-z0-9_][a-z0-9._-]{0,63}$` and not `^nodus\.`; one lookahead
// pattern says both.
const outputName = lazy(() => z.string().regex(/^(?!nodus\.)[a-z0-9_][a-z0-9._-]{0,63}$/));

export const StagePayload = lazy(() => z
  .looseObject({
    id: z.string(),
    source: built(WorkloadSource),
    inputs: z.array(built(StageInput)).nullable().optional(),
    continuity: built(Continuity).optional(),
    requirements: built(Requirements).optional(),
    depends_on: z.array(z.string()).nullable().optional(),
    total_units: z.int().min(0).optional(),
    outputs: z
      .record(built(outputName), z.union([z.string(), built(OutputDeclaration)]))
      .nullable()
      .optional()
      .describe('output name to a path inside the stage, or to a path with a sink'),
  })
  .meta({ id: 'StagePayload' }));
export type StagePayload = z.infer<typeof StagePayload>;

/** A submission. Open at the top level: the server ignores keys it does not know. */
export const WorkloadPayload = lazy(() => z
  .looseObject({
    source: built(WorkloadSource).optional(),
    inputs: z.array(built(WorkloadInput)).max(8).nullable().optional(),
    requirements: built(Requirements).optional(),
    optimization: built(optimization).optional(),
    outcome: built(Outcome).optional(),
    policy: built(Policy).optional(),
    continuity: built(Continuity).optional(),
    framework: z.enum(['', 'train_eval']).optional(),
    stages: z.array(built(StagePayload)).nullable().optional(),
    name: z.string().max(120).optional(),
    rl: built(RLMetadata).nullable().optional(),
    placement: built(Placement).optional(),
    connections: z.array(z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,127}$/)).max(1).optional(),
    sweep_id: z.string().max(128).regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/).optional(),
  })
  .meta({ id: 'WorkloadPayload' }));
export type WorkloadPayload = z.infer<typeof WorkloadPayload>;

/** Admission answer of a submit or launch; `id` and `workload_id` carry the same value. */
export const SubmitResult = lazy(() => z
  .looseObject({ id: z.string(), workload_id: z.string(), status: z.string(), revision: z.int() })
  .meta({ id: 'SubmitResult' }));
export type SubmitResult = z.infer<typeof SubmitResult>;

// ---------------------------------------------------------------------------------------------
// Reads of a workload

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
