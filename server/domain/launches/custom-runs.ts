import type { z } from 'zod';
import type { Requirements, WorkloadPayload } from '../../../openapi/workload-payload.js';
import { checkWorkloadAssets, holdAssets } from '../assets/workloads.js';
import { bindWorkloadConnection } from '../connections/uses.js';
import { budgetRefusal } from './admission.js';
import { DomainError } from '../errors.js';
import type { TenantUnit } from '../unit.js';
import { estimateRun } from '../../simulator/estimate.js';
import type { RecipeSimulation, SimSpec } from '../../simulator/types.js';
import { newWorkloadId } from '../ids.js';
import { insertWorkload } from '../workloads/rows.js';
import type { DomainContext } from '../context.js';

type Payload = z.infer<typeof WorkloadPayload>;

/** The contract's RLMetadata.environment_id enum; the catalog's own ids are added to it. */
const CONTRACT_ENVIRONMENTS = ['custom', 'reasoning-gym', 'swe-smith', 'textarena', 'miniwob', 'officeqa', 'appworld'];

/** Hourly prices the mock charges by GPU family; plausible list prices, not anyone's quote. */
const GPU_USD_PER_HOUR: Record<string, number> = {
  H100: 3.2, H200: 3.9, A100: 1.9, L40S: 1.86, L4: 0.96, A10G: 1.1, 'RTX-4090': 0.69, T4: 0.45,
};
const DEFAULT_ACCELERATOR_USD_PER_HOUR = 1.2;
const VM_USD_PER_HOUR = 0.12;
const DEFAULT_CUSTOM_RUN_SECONDS = 600;
export const MAX_CUSTOM_RUN_SECONDS = 7 * 24 * 3600;

/** A custom run's lifecycle: queueing and provisioning like a recipe run, no simulated tasks. */
const CUSTOM_SIMULATION: RecipeSimulation = {
  base_pass_rate: 0,
  trained_pass_rate: 0,
  group_size: 1,
  eval_concurrency: 1,
  seconds_per_attempt: 1,
  seconds_per_training_step: 1,
  planning_seconds: 5,
  reserving_seconds: 20,
  provisioning_seconds: 90,
  export_seconds: 0,
  error_rate: 0,
  infrastructure_failure_rate: 0,
};

type Req = z.infer<typeof Requirements>;

function allRequirements(p: Payload): Req[] {
  return [p.requirements, ...(p.stages ?? []).map((s) => s.requirements)].filter((r): r is Req => r !== undefined);
}

export function usdPerHour(p: Payload): number {
  const req = allRequirements(p)[0];
  if (req?.compute_class === 'vm') return VM_USD_PER_HOUR;
  const family = req?.gpu?.toUpperCase().replace(/^RTX-?/, 'RTX-');
  const perGpu = (family ? GPU_USD_PER_HOUR[family] : undefined) ?? DEFAULT_ACCELERATOR_USD_PER_HOUR;
  return perGpu * Number(req?.gpu_count ?? 1);
}

/**
 * Environment ids a submission may name: the contract's list plus what this catalog serves, its
 * recipes' environments and its environment catalog (the newer SDK submits `gsm8k` itself).
 */
function knownEnvironmentIds(deps: DomainContext): Set<string> {
  return new Set([
    ...CONTRACT_ENVIRONMENTS,
    ...deps.catalog.recipes.map((r) => r.environment_id),
    ...deps.catalog.environments.map((e) => e.id),
  ]);
}

const serverOwned = () => new DomainError('invalid', 'invalid_rl', 'body.rl.recipe: server-owned; only managed launches (POST /v1/rl-runs) carry recipe provenance');

/**
 * Any `rl.recipe` in a submission, whatever its shape: checked before the schema, so a string or
 * partial recipe gets the documented refusal rather than the provenance schema's complaints.
 */
export function refuseClientRecipe(body: unknown): void {
  const rl = (body as { rl?: unknown } | null)?.rl;
  if (rl !== null && typeof rl === 'object' && 'recipe' in rl) throw serverOwned();
}

/**
 * The submission rules of POST /v1/workloads that the schema cannot express: a source, a strict `rl`
 * block whose `recipe` is server-owned, and no distributed training.
 */
export function checkSubmission(deps: DomainContext, p: Payload): void {
  if (!p.source && !(p.stages && p.stages.length > 0)) {
    throw new DomainError('invalid', 'missing_source', 'a workload needs a `source` (image and command) or at least one entry in `stages`');
  }
  if (p.rl) {
    if ('recipe' in p.rl) throw serverOwned();
    if (!knownEnvironmentIds(deps).has(p.rl.environment_id)) {
      throw new DomainError('invalid', 'invalid_rl', `body.rl.environment_id: "${p.rl.environment_id}" is not a known environment (custom, a contract environment or a catalog id)`);
    }
  }
  for (const req of allRequirements(p)) {
    if ((req.node_count ?? 1) > 1 || req.distribution !== undefined || (req.total_gpu_count ?? 1) >= 2) {
      throw new DomainError('invalid', 'distributed_training_unavailable', 'multi-node, `distribution` and total_gpu_count >= 2 submissions are not available; use one node');
    }
  }
}

/** How long a custom run's command runs: what its submitter expects, else a default. */
function runSeconds(p: Payload): number {
  const hours = allRequirements(p)[0]?.expected_runtime_hours;
  return hours && hours > 0 ? hours * 3600 : DEFAULT_CUSTOM_RUN_SECONDS;
}

function customSpec(p: Payload, workloadId: string, createdAtMs: number, seconds: number): SimSpec {
  return {
    version: 1,
    kind: 'custom',
    workloadId,
    stageId: p.stages?.[0]?.id ?? 'main',
    mode: p.rl?.mode ?? 'evaluate',
    model: p.rl?.model ?? allRequirements(p)[0]?.model ?? 'custom',
    seed: 0,
    createdAtMs,
    evaluationTasks: 0,
    trainingSteps: 0,
    includeTraces: false,
    taskset: 'custom',
    simulation: CUSTOM_SIMULATION,
    usdPerHour: usdPerHour(p),
    privateGrading: false,
    customRunSeconds: seconds,
  };
}

/**
 * Admits a custom-kind workload once its key is known to be new: POST /v1/workloads, and example
 * runs, which know their run length from the catalog (`runSeconds`).
 */
export function admitCustomWorkload(deps: DomainContext, unit: TenantUnit, payload: Payload, options: { runSeconds?: number; example?: true } = {}): string {
  const { tenantId, nowMs } = unit;
  checkSubmission(deps, payload);
  const assetIds = checkWorkloadAssets(unit.tables, tenantId, payload, nowMs);
  const id = newWorkloadId();
  const spec = customSpec(payload, id, nowMs, Math.min(options.runSeconds ?? runSeconds(payload), MAX_CUSTOM_RUN_SECONDS));
  const estimatedCostUsd = estimateRun(spec).computeCostUsd.high;
  const refusal = budgetRefusal(unit, estimatedCostUsd);
  if (refusal) throw refusal;
  insertWorkload(unit, { id, kind: 'custom', origin: options.example ? 'example' : 'custom', name: payload.name ?? null, payload, spec, estimatedCostUsd });
  holdAssets(unit, id, assetIds);
  bindWorkloadConnection(unit, id, payload);
  return id;
}
