import t from '../helpers/tap.js';
import { z } from 'zod';
import * as rlEnvironments from '../../openapi/rl-environments.js';
import * as rlEvidence from '../../openapi/rl-evidence.js';
import * as rlRecipes from '../../openapi/rl-recipes.js';
import * as workloadPayload from '../../openapi/workload-payload.js';
import * as workloads from '../../openapi/workloads.js';
import { componentErrors } from '../helpers/contract.js';
import { refusedAt } from '../helpers/zod-verdict.js';

/** Realistic bodies, judged by the zod schemas and by the contract (through ajv); both must agree. */

const schemas = { ...rlRecipes, ...rlEvidence, ...rlEnvironments, ...workloadPayload, ...workloads } as unknown as Record<string, z.ZodType>;
const hex = (char: string) => char.repeat(64);
const at = '2026-11-30T12:00:00.000Z';

const recipe = {
  held_out_measures: 'held-out leg-counting tasks, pass rate before and after training',
  id: 'reasoning-gym-leg-counting',
  version: '1.0.0',
  environment_id: 'reasoning-gym',
  name: 'Leg counting',
  model: 'Qwen/Qwen3-1.7B',
  model_revision: 'a'.repeat(40),
  taskset: 'reasoning_gym/leg_counting',
  modes: ['evaluate', 'train'],
  available: true,
  defaults: { evaluation_tasks: 16, training_steps: 20, seed: 42 },
  limits: { comparison_tasks_min: 4, evaluation_tasks_min: 4, evaluation_tasks_max: 64, training_steps_min: 1, training_steps_max: 50 },
  outputs: [{ name: 'adapter', description: 'LoRA adapter after training' }],
};

const event = (id: number, kind: 'task_started' | 'task_completed') => ({
  id: String(id),
  stage_id: 'main',
  generation: 1,
  received_at: at,
  event: {
    event_id: `nre_${id.toString(16).padStart(32, '0')}`,
    phase: 'evaluation',
    task_id: `leg-${id}`,
    attempt: 1,
    kind,
    ...(kind === 'task_completed' ? { outcome: 'failed', reward: -0.5, duration_ms: 1520 } : {}),
  },
});

const phase = (passed: number, failed: number) => ({
  attempts: passed + failed,
  scored: passed + failed,
  passed,
  failed,
  errors: 0,
  in_progress: 0,
  pass_rate: passed + failed ? passed / (passed + failed) : null,
  mean_reward: passed + failed ? passed / (passed + failed) : null,
  reward_samples: passed + failed,
});

const rlBlock = { schema_version: 1, environment_id: 'gsm8k', mode: 'train', model: 'Qwen/Qwen3-1.7B', planned_tasks: 64 };

const accepted: Array<[string, unknown]> = [
  ['RLRecipeDescriptor', recipe],
  ['RLRecipeDescriptor', { ...recipe, available: false, unavailable_reason: 'runtime not qualified' }],
  [
    'RLRunPreview',
    {
      recipe,
      configuration: { recipe_id: recipe.id, recipe_version: '1.0.0', mode: 'train', evaluation_tasks: 16, training_steps: 20, seed: 42, include_traces: false },
      review_token: hex('d'),
      phases: [
        { id: 'baseline', label: 'Baseline', description: 'score the base model' },
        { id: 'export', label: 'Export', description: 'publish the adapter' },
      ],
      outputs: recipe.outputs,
      estimate: {
        status: 'partial',
        reasons: ['no price for this region'],
        valid_until: at,
        execution_seconds: { low: 600, high: 900 },
        completion_seconds: { low: 700, high: 1200 },
        compute_cost_usd: null,
        estimator_version: '3',
      },
      launchable: true,
      blocking_reasons: [],
    },
  ],
  ['RLRunRequest', { recipe_id: 'a-catalog-recipe', mode: 'evaluate', review_token: hex('e') }],
  ['RLEventPage', { schema_version: 1, events: [event(1, 'task_started'), event(2, 'task_completed')], next_cursor: 'c_2', has_more: false, dropped_events: 0, truncated: false }],
  ['RLEventPage', { schema_version: 1, events: [], next_cursor: '', has_more: false, dropped_events: 3, truncated: true }],
  [
    'RLGradingResults',
    {
      schema_version: 1,
      workload_id: 'wl_abc',
      revision: 1,
      plan_sha256: hex('b'),
      parent_status: 'completed',
      grading_cleanup_complete: true,
      receipts: [
        { attempt_id: 'a1', request_id: 'r1', task_id: 't1', candidate_sha256: hex('1'), plan_sha256: hex('b'), manifest_sha256: hex('2'), state: 'completed', reward: 1, cleanup_complete: true },
        { attempt_id: 'a2', request_id: 'r2', task_id: 't2', candidate_sha256: hex('3'), plan_sha256: hex('b'), manifest_sha256: hex('4'), state: 'infrastructure_failure', infrastructure_code: 'grading_unavailable', cleanup_complete: true },
      ],
    },
  ],
  [
    'RLSummary',
    {
      schema_version: 1,
      workload_id: 'wl_abc',
      phases: { baseline: phase(51, 13), training: { ...phase(0, 0), in_progress: 1 }, evaluation: phase(56, 8) },
      comparison: {
        baseline_pass_rate: 0.796875,
        evaluation_pass_rate: 0.875,
        change_pp: 7.8125,
        resolution_pp: 1.5625,
        comparable: true,
        measurable: true,
        reason: 'comparable',
        message: '',
      },
      dropped_events: 0,
      truncated: false,
    },
  ],
  [
    'RLEnvironment',
    {
      id: 'gsm8k',
      name: 'GSM8K',
      publisher: 'OpenAI',
      summary: 'Grade-school math word problems',
      category: 'Reasoning',
      source_url: 'https://github.com/openai/grade-school-math',
      modes: ['train', 'evaluate'],
      readiness: 'research',
      requirements: ['gpu'],
      launch: {
        image: 'pytorch/pytorch:2.14.0-cuda12.6-cudnn9-runtime',
        model: 'Qwen/Qwen3-1.7B',
        peak_memory_gb: 48,
        default_tasks: 64,
        results: ['outputs/results.json'],
        examples: [
          {
            id: 'gsm8k-trained',
            dataset: 'openai/gsm8k',
            name: 'GRPO LoRA on GSM8K',
            mode: 'train',
            command: 'pip install -q trl && python train.py',
            baseline_pass_rate: 0.7969,
            trained_pass_rate: 0.875,
            measured_change_pp: 7.8,
            runtime_minutes: 60,
          },
        ],
      },
    },
  ],
  ['RLMetadata', { ...rlBlock, recipe: { id: recipe.id, version: '1.0.0', runtime_image: 'ghcr.io/nodus/rl:1', model_revision: 'a'.repeat(40), config_sha256: hex('5'), request_sha256: hex('6'), review_token: hex('7') } }],
  ['SubmitResult', { id: 'wl_abc', workload_id: 'wl_abc', status: 'accepted', revision: 1 }],
  [
    'Workload',
    {
      id: 'wl_abc',
      tenant_id: 'tenant_1',
      status: 'running',
      revision: 2,
      spend_usd: 0.42,
      created_at: at,
      updated_at: '2026-11-30T12:05:00Z',
      payload: {
        requirements: { gpu: 'H100', gpu_count: 1 },
        continuity: { mode: 'checkpointed', resume_on_interruption: true },
        stages: [{ id: 'main', source: { image: 'python:3.11-slim', command: ['sh', '-c', 'python run.py'] }, outputs: { results: 'outputs/results.json' } }],
        rl: rlBlock,
      },
      route: { offer_id: 'aws-g5', compute_class: 'accelerator', price_usd_hour: 1.2, expected_cost_usd: null, cost: null, fallback_graph: null, resources: { gpu_count: 1 } },
      latest_checkpoint: null,
      stages: [{ id: 'main', status: 'running', completed_units: 3, total_units: 64, last_loss: null, latest_manifest: { manifest_id: 'm1', generation: 1, sequence: 3, created_at: at } }],
      meter: { settled_usd: 0.4, accruing_usd: 0.02, as_of: at, charge_state: 'estimated' },
      unit_metrics: { units_completed: 3, p50_ms: null, p95_ms: 120, cost_per_unit_usd: null, dropped_observations: 0 },
      links: [{ kind: 'wandb', url: 'https://wandb.ai/team/project/runs/abc' }],
      sink_error: '',
      checkpoint_preparation: [{ stage_id: 'main', state: 'ready', proposed_integration: 'none', ready_at: null }],
    },
  ],
  ['WorkloadListItem', { id: 'wl_abc', status: 'completed', spend_usd: 1, revision: 1, created_at: at, updated_at: at, owner_user_id: null, name: 'leg counting', links: [] }],
  ['WorkloadEvent', { id: 7, event_id: 'ev_7', event_type: 'stage.started', payload: { stage_id: 'main' }, created_at: at }],
  ['WorkloadFreeze', { id: 'fz_1', workload_id: 'wl_abc', stage_id: 'main', generation: 1, state: 'frozen', requested_at: at, frozen_at: at, retained_bytes: 1048576, storage_charge_micros: null, storage_billing_status: 'retained_storage_not_separately_metered' }],
  ['LiveLogPage', {
    chunks: [
      { id: 1, stage_id: 'main', generation: 1, text: 'step 1\n' },
      { group_id: 'g1', member_id: 'm0', node_rank: 0, stage_id: 'main', generation: 1, offset: 0, text: 'hi\n', data_base64: 'aGkK' },
    ],
    next_cursor: 'c_2',
    truncated: false,
  }],
  ['Output', { name: 'results.json', stage_id: 'main', sha256: hex('9'), bytes: 512, download: '/v1/workloads/wl_abc/outputs/results.json', sink_state: 'loaded', sink_rows: 10 }],
  ['CustomerLedgerEntry', { id: 'le_1', correlation_id: 'wl_abc', entry_type: 'customer_charge', debit_usd: 0, credit_usd: 0.4, currency: 'USD', evidence: null, created_at: at }],
  ['Settlement', { status: 'closed', balance_usd: 0, correlation_id: 'wl_abc', closed_at: at }],
  ['RoutingPlacement', { workload_id: 'wl_abc', stage_id: 'main', generation: 1, sku: 'g5.xlarge', provisioned_at: at, running_at: null, boot_ok: true, actual_cost_usd: null, superseded_by: 2, ended_at: at }],
  ['Artifact', { manifest_id: 'm1', stage_id: 'main', generation: 1, sequence: 1, manifest: { files: [] }, created_at: at }],
  ['Requirements', { total_gpu_count: 16, distribution: { framework: 'deepspeed', mode: 'low_communication', diloco: { version: 1, islands: 2, local_steps: 500, outer_learning_rate: 0.7, outer_momentum: 0.9, synchronization_timeout_seconds: 600 } } }],
];

const refused: Array<[string, unknown]> = [
  ['RLEvent', { event_id: 'e', phase: 'baseline', task_id: 't', attempt: 1, kind: 'task_started', reward: 0 }],
  ['RLEvent', { event_id: 'e', phase: 'baseline', task_id: 't', attempt: 1, kind: 'task_completed' }],
  ['RLEventPage', { schema_version: 1, events: Array.from({ length: 201 }, (_, i) => event(i, 'task_started')), next_cursor: '', has_more: true, dropped_events: 0, truncated: false }],
  ['RLEventPage', { schema_version: 2, events: [], next_cursor: '', has_more: false, dropped_events: 0, truncated: false }],
  ['RLMetadata', { ...rlBlock, environment_id: 'officeqa' }],
  ['RLMetadata', { ...rlBlock, environment_id: 'Bad_ID' }],
  ['RLRecipeRequest', { seed: null }],
  ['RLRunPreview', { recipe }],
  ['RLSummary', { schema_version: 1, workload_id: 'w', phases: { baseline: phase(1, 0), evaluation: phase(1, 0) }, comparison: null, dropped_events: 0, truncated: false }],
  ['Placement', {}],
  ['Placement', { pool: 'p', prefer: 'any' }],
  ['WorkloadInput', { name: 'd', asset_id: 'asset_1', bucket: { uri: 'u', region: 'r', bytes: 1, sha256: hex('a'), credential_source: 'team_webhook' } }],
  ['Requirements', { total_gpu_count: 2, node_count: 2 }],
  ['Requirements', { distribution: { framework: 'jax' } }],
  ['WorkloadFreeze', { id: 'fz_1', workload_id: 'w', stage_id: 'main', generation: 0, state: 'frozen', requested_at: at, frozen_at: null, retained_bytes: 0, storage_charge_micros: null, storage_billing_status: 'retained_storage_not_separately_metered' }],
  ['StagePayload', { id: 'main', source: {}, outputs: { 'nodus.internal': 'x' } }],
  ['WorkloadLink', { kind: 'wandb' }],
];

t.test('realistic bodies the contract accepts, zod accepts', async (t) => {
  for (const [name, value] of accepted) {
    t.same(componentErrors(name, value), [], `${name}: contract`);
    t.same(refusedAt(schemas[name]!, value), [], `${name}: zod`);
  }
});

t.test('bodies the contract refuses, zod refuses', async (t) => {
  for (const [name, value] of refused) {
    t.not(componentErrors(name, value).length, 0, `${name}: contract refuses`);
    t.not(refusedAt(schemas[name]!, value).length, 0, `${name}: zod refuses`);
  }
});

t.test('where zod is stricter than the contract document, as the contract prose says', async (t) => {
  const base = { event_id: 'e', phase: 'baseline', task_id: 't', attempt: 1, kind: 'task_completed', outcome: 'passed' };
  const stricter: Array<[string, unknown, string]> = [
    ['RLEvent', { ...base, message: 'é'.repeat(513) }, 'byte limits count UTF-8 bytes'],
    ['RLEvent', { ...base, task_id: ' t' }, 'identities have no edge whitespace'],
    ['RLEvent', { ...base, event_id: 'e\u0001' }, 'identities have no control characters'],
    ['RLEvent', { ...base, message: '\u0007' }, 'text allows only tab, CR and LF as control characters'],
    ['RLMetadata', { ...rlBlock, model: 'model\n' }, 'the model label is an identity too'],
    [
      'RLGradingReceipt',
      { attempt_id: 'a', request_id: 'r', task_id: 't', candidate_sha256: hex('1'), plan_sha256: hex('2'), manifest_sha256: hex('3'), state: 'pending', reward: 0.5, cleanup_complete: false },
      'reward only on completed receipts',
    ],
  ];
  for (const [name, value, rule] of stricter) {
    t.same(componentErrors(name, value), [], `${name}: the contract document cannot say "${rule}"`);
    t.not(refusedAt(schemas[name]!, value).length, 0, `${name}: zod enforces "${rule}"`);
  }
});
