import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import t from '../helpers/tap.js';
import { z } from 'zod';
import { RLEnvironment } from '../../openapi/rl-environments.js';
import { RLRecipeRequest } from '../../openapi/rl-recipes.js';
import { Placement, Requirements, SubmitResult, WorkloadInput, WorkloadPayload } from '../../openapi/workload-payload.js';
import { refusedAt } from '../helpers/zod-verdict.js';

// The body the SDK's own tests send to `client.run(...)`, with an `rl` block.
const sdkPayload = {
  requirements: { compute_class: 'accelerator' },
  outcome: { max_cost_usd: 3.0 },
  continuity: { mode: 'checkpointed', resume_on_interruption: true },
  stages: [
    {
      id: 'main',
      source: { image: 'python:3.11-slim', command: ['python', 'train.py'] },
      outputs: { scores: { path: 'outputs/scores.csv', sink: { connection: 'metrics', table: 'scores' } } },
    },
  ],
  connections: ['metrics'],
  rl: { schema_version: 1, environment_id: 'custom', mode: 'evaluate', model: 'my-model', planned_tasks: 8 },
};

t.test('WorkloadPayload: open at the top level and in open parts, strict where the contract is', async (t) => {
  t.same(refusedAt(WorkloadPayload, sdkPayload), []);
  t.same(refusedAt(WorkloadPayload, {}), []);
  const parsed = WorkloadPayload.parse({ ...sdkPayload, future_field: { x: 1 }, requirements: { gpu: 'H100', hint: 'x' } });
  t.same(parsed.future_field, { x: 1 }, 'unknown top-level keys are kept, not refused');
  t.same(parsed.requirements?.hint, 'x', 'Requirements is open too');
  t.same(refusedAt(WorkloadPayload, { ...sdkPayload, rl: null }), [], 'rl may be null');
  t.same(refusedAt(WorkloadPayload, { ...sdkPayload, rl: { ...sdkPayload.rl, extra: 1 } }), ['rl.extra'], 'rl is strict');
  t.same(refusedAt(WorkloadPayload, { name: 'n'.repeat(121) }), ['name']);
  t.same(refusedAt(WorkloadPayload, { connections: ['a', 'b'] }), ['connections']);
  t.same(refusedAt(WorkloadPayload, { connections: ['1metrics'] }), ['connections.0']);
  t.same(refusedAt(WorkloadPayload, { sweep_id: '.sweep' }), ['sweep_id']);
  t.same(refusedAt(WorkloadPayload, { framework: 'train_eval', optimization: '' }), []);
  t.same(refusedAt(WorkloadPayload, { source: { asset_id: '' } }), [], 'an empty asset_id is allowed');
  t.same(refusedAt(WorkloadPayload, { source: { asset_id: 'file_1' } }), ['source.asset_id']);
  const asset = { name: 'data', asset_id: 'asset_1' };
  t.same(refusedAt(WorkloadPayload, { inputs: Array(8).fill(asset) }), []);
  t.same(refusedAt(WorkloadPayload, { inputs: Array(9).fill(asset) }), ['inputs']);
});

t.test('StagePayload outputs: names match the pattern and never start with nodus.', async (t) => {
  const withOutputs = (outputs: unknown) => ({ stages: [{ id: 'main', source: {}, outputs }] });
  t.same(refusedAt(WorkloadPayload, withOutputs({ 'model.safetensors': 'out/model', _log: 'log.txt' })), []);
  t.same(refusedAt(WorkloadPayload, withOutputs(null)), []);
  for (const name of ['nodus.result', 'Scores', '-x', 'n'.repeat(65)]) {
    t.same(refusedAt(WorkloadPayload, withOutputs({ [name]: 'p' })), ['stages.0.outputs.' + name], name);
  }
  t.same(refusedAt(WorkloadPayload, withOutputs({ s: { path: 'p', sink: { connection: 'c', table: '1t' } } })).length, 1);
  t.same(refusedAt(WorkloadPayload, withOutputs({ s: { path: 'p', mode: 'x' } })).length, 1, 'declarations are closed');
  t.same(refusedAt(WorkloadPayload, { stages: [{ id: 'main' }] }), ['stages.0.source']);
});

t.test('WorkloadInput: exactly one of asset_id or bucket; cache only with an asset', async (t) => {
  const bucket = { uri: 's3://b/k', region: 'us-east-1', bytes: 10, sha256: 'f'.repeat(64), credential_source: 'team_webhook' };
  t.same(refusedAt(WorkloadInput, { name: 'data', asset_id: 'asset_abc', cache: true }), []);
  t.same(refusedAt(WorkloadInput, { name: 'data', bucket }), []);
  t.same(refusedAt(WorkloadInput, { name: 'data' }), ['']);
  t.same(refusedAt(WorkloadInput, { name: 'data', asset_id: 'asset_abc', bucket }), ['']);
  t.same(refusedAt(WorkloadInput, { name: 'data', bucket, cache: false }), ['cache']);
  t.same(refusedAt(WorkloadInput, { name: '9data', asset_id: 'asset_abc' }), ['name']);
  t.same(refusedAt(WorkloadInput, { name: 'data', bucket: { ...bucket, credential_source: 'env' } }), ['bucket.credential_source']);
});

t.test('Placement: exactly one of pool or prefer', async (t) => {
  t.same(refusedAt(Placement, { pool: 'gpu-pool' }), []);
  t.same(refusedAt(Placement, { prefer: 'any' }), []);
  t.same(refusedAt(Placement, {}), ['']);
  t.same(refusedAt(Placement, { pool: 'p', prefer: 'any' }), ['']);
  t.same(refusedAt(Placement, { pool: '' }), ['pool']);
  t.same(refusedAt(Placement, { pool: 'p', region: 'eu' }), ['region']);
});

t.test('Requirements: total_gpu_count excludes node_count/gpu_count; distribution needs processes', async (t) => {
  const distribution = { framework: 'pytorch' };
  t.same(refusedAt(Requirements, { gpu_count: 8, node_count: 2 }), []);
  t.same(refusedAt(Requirements, { gpu_count: 3 }), ['gpu_count']);
  t.same(refusedAt(Requirements, { total_gpu_count: 4, node_count: 1 }), ['node_count']);
  t.same(refusedAt(Requirements, { total_gpu_count: 4, gpu_count: 4 }), ['gpu_count']);
  t.same(refusedAt(Requirements, { total_gpu_count: 16, distribution }), [], 'processes derived from total_gpu_count');
  t.same(refusedAt(Requirements, { distribution }), ['distribution.processes_per_node']);
  t.same(refusedAt(Requirements, { total_gpu_count: 1, distribution: { ...distribution, processes_per_node: 0 } }), [
    'distribution.processes_per_node',
  ]);
  t.same(refusedAt(Requirements, { distribution: { ...distribution, processes_per_node: 8 } }), []);
  t.same(refusedAt(Requirements, { distribution: { processes_per_node: 8 } }), ['distribution.framework']);
  t.same(refusedAt(Requirements, { disk_gb: -1, compute_class: 'gpu' }), ['compute_class', 'disk_gb']);
});

t.test('schemas serve directly as Fastify body and response schemas', async (t) => {
  const app = Fastify().withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.post('/runs', { schema: { body: RLRecipeRequest, response: { 202: SubmitResult } } }, async (request, reply) =>
    reply.code(202).send({ id: 'wl_1', workload_id: 'wl_1', status: 'accepted', revision: 1, seed: request.body.seed }),
  );
  const gsm8k: RLEnvironment = {
    id: 'gsm8k',
    name: 'GSM8K',
    publisher: 'OpenAI',
    summary: 'Grade-school math',
    category: 'Reasoning',
    source_url: 'https://github.com/openai/grade-school-math',
    modes: ['train', 'evaluate'],
    readiness: 'research',
  };
  app.get('/env', { schema: { response: { 200: RLEnvironment } } }, async () => gsm8k);
  app.get('/broken', { schema: { response: { 200: SubmitResult } } }, async () => ({ id: 'wl_1' }) as z.infer<typeof SubmitResult>);
  t.teardown(() => app.close());

  const ok = await app.inject({ method: 'POST', url: '/runs', payload: { seed: 7 } });
  t.equal(ok.statusCode, 202);
  t.same(ok.json(), { id: 'wl_1', workload_id: 'wl_1', status: 'accepted', revision: 1, seed: 7 }, 'open response keeps extra keys');
  t.equal((await app.inject({ method: 'POST', url: '/runs', payload: { seed: null } })).statusCode, 400);
  t.equal((await app.inject({ method: 'GET', url: '/env' })).json().readiness, 'research', 'unlisted catalog keys survive');
  t.equal((await app.inject({ method: 'GET', url: '/broken' })).statusCode, 500, 'a response missing required fields is a bug');
});
