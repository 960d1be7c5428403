import { readFileSync } from 'node:fs';
import t from '../helpers/tap.js';
import { CONTRACT_PATH, conforms } from '../helpers/contract.js';
import { headerProblems } from '../helpers/documented-headers.js';
import { advance, legCounting, secondsToFinish } from '../helpers/rl.js';
import { startServer, type CallOptions, type CallResult } from '../helpers/server.js';

/**
 * Issue 7's "done when": every in-scope operation of the contract (the 27 operations of
 * openapi-rl-subset.json, the five asset and three webhook operations the SDK calls, and the ten of
 * secrets, connections and compute) is served for a realistic request, with a 2xx and a body the
 * contract accepts, and with the headers the served document declares for it.
 */

const contract = JSON.parse(readFileSync(CONTRACT_PATH, 'utf8'));
const OPERATIONS = Object.entries<Record<string, unknown>>(contract.paths).flatMap(([path, ops]) =>
  Object.keys(ops).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m)).map((m) => `${m.toUpperCase()} ${path}`));

t.test('every in-scope operation answers a realistic request with a contract-valid body', async (t) => {
  t.equal(OPERATIONS.length, 45, 'the subset holds 27 operations; assets add 5, webhooks 3, and secrets, connections and compute 10');
  const s = await startServer(t, { clock: 'manual' });
  const answers = new Map<string, CallResult>();
  const call = async (method: string, template: string, params: Record<string, string> = {}, query = '', options: CallOptions = {}) => {
    const path = template.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(params[name]));
    const res = await s.call(method, path + query, options);
    answers.set(`${method} ${template}`, res);
    return res;
  };
  const key = (k: string) => ({ headers: { 'idempotency-key': k } });

  await call('GET', '/v1/me');
  await call('GET', '/v1/rl-recipes');
  const configuration = legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 5 });
  const preview = await call('POST', '/v1/rl-runs/preview', {}, '', { body: configuration });
  const launch = await call('POST', '/v1/rl-runs', {}, '', { body: { ...preview.body.configuration, review_token: preview.body.review_token }, ...key('walk-launch') });
  const recipeRun = { id: launch.body.id };

  await call('GET', '/v1/rl-environments');
  const example = { environment: 'gsm8k', example: 'gsm8k-trained' };
  await call('GET', '/v1/rl-environments/{environment}', example);
  const built = await call('GET', '/v1/rl-environments/{environment}/examples/{example}/workload', example);
  const exampleRun = await call('POST', '/v1/rl-environments/{environment}/examples/{example}/runs', example, '', { body: {}, ...key('walk-example') });
  await call('POST', '/v1/workloads/validate', {}, '', { body: built.body.workload });
  await call('GET', '/v1/assets');
  const code = await call('POST', '/v1/assets/upload', {}, '?name=train.py', { raw: 'print("training")\n', headers: { 'content-type': 'application/octet-stream' } });
  const imported = await call('POST', '/v1/assets/import', {}, '', { body: { kind: 'github', repo: 'nodus-compute/examples', ref: 'v1' } });
  await call('GET', '/v1/assets/{id}', { id: code.body.id });
  await call('DELETE', '/v1/assets/{id}', { id: imported.body.id });
  await call('POST', '/v1/secrets', {}, '', { body: { name: 'WANDB_API_KEY', value: 'wandb-value' } });
  await call('POST', '/v1/secrets', {}, '', { body: { name: 'SCRATCH', value: 'scratch-value' } });
  await call('GET', '/v1/secrets');
  await call('DELETE', '/v1/secrets/{name}', { name: 'SCRATCH' });
  const wandb = await call('POST', '/v1/connections', {}, '', { body: { name: 'wb', kind: 'wandb', secret: 'WANDB_API_KEY', entity: 'team', project: 'rl', live_mode: true } });
  await call('GET', '/v1/connections');
  await call('GET', '/v1/connections/{id}', { id: 'wb' });
  await call('POST', '/v1/connections/{id}/verify', { id: wandb.body.id });
  const spare = (await s.call('POST', '/v1/connections', { body: { name: 'spare', kind: 'postgres', secret: 'WANDB_API_KEY' } })).body;
  await call('DELETE', '/v1/connections/{id}', { id: spare.id });
  const sdkRun = await call('POST', '/v1/workloads', {}, '', {
    body: {
      connections: ['wb'],
      sweep_id: 'lr-sweep',
      requirements: {},
      outcome: {},
      continuity: { mode: 'checkpointed', resume_on_interruption: true },
      stages: [{ id: 'main', source: { image: 'pytorch/pytorch:2.14.0-cuda12.6-cudnn9-runtime', command: ['sh', '-c', 'python train.py'], asset_id: code.body.id }, outputs: { 'results.json': 'outputs/results.json' } }],
      rl: { schema_version: 1, environment_id: 'gsm8k', mode: 'train', model: 'Qwen/Qwen3-1.7B', planned_tasks: 64 },
    },
    ...key('walk-submit'),
  });

  await advance(s, 300);
  const frozen = { id: sdkRun.body.id };
  await call('POST', '/v1/workloads/{id}/freeze', frozen, '', { body: {} });
  await advance(s, 30);
  await call('GET', '/v1/workloads/{id}/freeze', frozen);
  await call('POST', '/v1/workloads/{id}/resume', frozen, '', { body: {} });
  await call('POST', '/v1/workloads/{id}/cancel', { id: exampleRun.body.id }, '', key(`cancel-${exampleRun.body.id}-1`));

  await advance(s, secondsToFinish(preview.body));
  await call('GET', '/v1/workloads', {}, '?limit=50&offset=0');
  await call('GET', '/v1/workloads/{id}', recipeRun);
  await call('GET', '/v1/workloads/{id}/events', recipeRun, '?after=0');
  await call('GET', '/v1/workloads/{id}/rl-events', recipeRun, '?limit=100');
  await call('GET', '/v1/workloads/{id}/rl-grading-results', recipeRun, '?revision=1');
  await call('GET', '/v1/workloads/{id}/rl-summary', recipeRun);
  await call('GET', '/v1/workloads/{id}/outputs', recipeRun);
  await call('GET', '/v1/workloads/{id}/outputs/{name}', { ...recipeRun, name: 'results.json' }, '?stage=main');
  await call('GET', '/v1/workloads/{id}/logs', recipeRun);
  await call('GET', '/v1/workloads/{id}/logs/live', recipeRun, '?after=');
  await call('GET', '/v1/workloads/{id}/artifacts', recipeRun);
  await call('GET', '/v1/workloads/{id}/ledger', recipeRun);
  await call('GET', '/v1/workloads/{id}/routing', recipeRun);

  await call('GET', '/v1/compute', {}, '?state=history&limit=10');
  await call('GET', '/v1/compute/groups/{id}', { id: 'sweep_lr-sweep' });

  await call('PUT', '/v1/webhooks', {}, '', { body: { url: 'http://127.0.0.1:9/hook' } });
  await call('GET', '/v1/webhooks');
  await call('DELETE', '/v1/webhooks');

  t.same([...answers.keys()].sort(), [...OPERATIONS].sort(), 'the walk called each operation once');
  const served = (await s.call('GET', '/openapi.json', { key: null })).body;
  for (const operation of OPERATIONS) {
    await t.test(operation, async (t) => {
      const res = answers.get(operation)!;
      const [method, template] = operation.split(' ');
      t.ok(res.status >= 200 && res.status < 300, `served: ${res.status} ${res.status >= 300 ? res.text.slice(0, 200) : ''}`);
      conforms(t, method, template, res);
      t.same(headerProblems(served, method, template, res), [], 'its headers are the ones the served document declares');
    });
  }
  t.equal(answers.get('GET /v1/workloads/{id}/logs')!.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.equal(answers.get('GET /v1/workloads/{id}/outputs/{name}')!.headers.get('content-type'), 'application/octet-stream');
});
