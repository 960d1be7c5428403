import { z } from 'zod';
import { integerConst, integerEnum, sha256Hex } from './primitives.js';
import { RLMetadata } from './rl-recipes.js';
import { built, lazy } from './lazy.js';

/**
 * What a workload submission carries (POST /v1/workloads, an example run, a validation) and its
 * admission answer. Objects the contract leaves open stay open (z.looseObject) so unknown keys
 * survive validation and serialisation; the ones it closes are strict.
 */
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
