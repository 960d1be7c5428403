import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from '../../helpers/tap.js';
import { DEFAULT_ENVIRONMENTS_PATH } from '../../../server/domain/catalog/index.js';
import { conforms } from '../../helpers/contract.js';
import { advance, workloadCount } from '../../helpers/rl.js';
import { startInProcess, type TestServer } from '../../helpers/server.js';

const GSM8K_RUNS = '/v1/rl-environments/gsm8k/examples/gsm8k-trained/runs';
const RUNS = '/v1/rl-environments/{environment}/examples/{example}/runs';

const run = (s: TestServer, path: string, key: string | null, body?: unknown, callKey?: string) =>
  s.call('POST', path, { body, headers: key === null ? {} : { 'idempotency-key': key }, key: callKey });

/** A --catalog file with only an environments section, next to the test's database. */
function environmentsFile(s: { dbPath: string }, change: (doc: any) => void): string {
  const doc = JSON.parse(readFileSync(DEFAULT_ENVIRONMENTS_PATH(), 'utf8'));
  change(doc);
  const file = join(dirname(s.dbPath), `environments-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

t.test('the catalog: list, one entry, and what the SDK requires of it', async (t) => {
  const s = await startInProcess(t);
  const list = await s.call('GET', '/v1/rl-environments');
  t.equal(list.status, 200);
  conforms(t, 'GET', '/v1/rl-environments', list);
  t.equal(list.body.schema_version, 1);
  t.type(list.body.reviewed_at, 'string');
  t.same(list.body.environments.map((e: any) => e.id), ['gsm8k', 'graph-coloring', 'swe-smith']);
  const [gsm8k, graph, listed] = list.body.environments;
  t.match(gsm8k, { publisher: 'OpenAI', category: 'Reasoning', modes: ['train', 'evaluate'] });
  t.match(gsm8k.launch, {
    image: 'pytorch/pytorch:2.14.0-cuda12.6-cudnn9-runtime',
    model: 'Qwen/Qwen3-1.7B',
    peak_memory_gb: 48,
    default_tasks: 64,
    results: ['outputs/results.json'],
    measured_on: String,
  });
  t.match(gsm8k.launch.examples[0], {
    id: 'gsm8k-trained',
    dataset: 'openai/gsm8k',
    mode: 'train',
    baseline_pass_rate: 0.7969,
    trained_pass_rate: 0.875,
    measured_change_pp: 7.8,
    runtime_minutes: 60,
    command: /&&/,
  });
  t.match(graph.launch, { model: 'Qwen/Qwen3-0.6B', examples: [{ id: 'graph-coloring-trained', dataset: 'nodus/graph-coloring' }] });
  t.notOk('launch' in listed, 'a listed-only environment has no launch');
  for (const e of list.body.environments) {
    for (const f of ['id', 'name', 'publisher', 'summary', 'category', 'source_url']) t.ok(e[f], `${e.id}.${f} is a non-empty string`);
    if (e.launch) t.ok(Array.isArray(e.launch.results), `${e.id}: launch.results is a list`);
  }

  const one = await s.call('GET', '/v1/rl-environments/gsm8k');
  conforms(t, 'GET', '/v1/rl-environments/{environment}', one);
  t.same(one.body, gsm8k, 'the same entry as in the list');
  const unknown = await s.call('GET', '/v1/rl-environments/nope');
  t.equal(unknown.status, 404);
  t.equal(unknown.body.error, 'not_found');
  conforms(t, 'GET', '/v1/rl-environments/{environment}', unknown);
});

t.test('an example\'s workload: what the run route submits, starting and charging nothing', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const res = await s.call('GET', '/v1/rl-environments/gsm8k/examples/gsm8k-trained/workload');
  t.equal(res.status, 200);
  conforms(t, 'GET', '/v1/rl-environments/{environment}/examples/{example}/workload', res);
  const { workload } = res.body;
  const example = (await s.call('GET', '/v1/rl-environments/gsm8k')).body.launch.examples[0];
  t.same(workload.stages, [{
    id: 'main',
    source: { image: 'pytorch/pytorch:2.14.0-cuda12.6-cudnn9-runtime', command: ['sh', '-c', example.command] },
    outputs: { 'results.json': 'outputs/results.json' },
  }], 'the shell text under sh -c, in the launch image, results as outputs');
  t.match(workload.requirements, { compute_class: 'accelerator', model: 'Qwen/Qwen3-1.7B' });
  t.ok(workload.requirements.peak_memory_gb >= 48, 'GPU memory at least the launch\'s');
  t.same(workload.rl, { schema_version: 1, environment_id: 'gsm8k', mode: 'train', model: 'Qwen/Qwen3-1.7B', planned_tasks: 64, example_id: 'gsm8k-trained' });
  t.equal(workload.name, 'GSM8K: GSM8K GRPO LoRA', 'the default name: environment and example names');
  t.equal(workloadCount(s), 0, 'nothing was submitted');

  const graph = (await s.call('GET', '/v1/rl-environments/graph-coloring/examples/graph-coloring-trained/workload')).body.workload;
  t.same(graph.stages[0].outputs, { 'results.json': 'outputs/results.json', 'adapter_model.safetensors': 'outputs/adapter/adapter_model.safetensors' });

  for (const path of ['nope/examples/gsm8k-trained', 'gsm8k/examples/nope', 'swe-smith/examples/anything']) {
    const missing = await s.call('GET', `/v1/rl-environments/${path}/workload`);
    t.equal(missing.status, 404, path);
    conforms(t, 'GET', '/v1/rl-environments/{environment}/examples/{example}/workload', missing);
  }
});

t.test('an example run: an ordinary workload, replayed on retry, refused on conflict', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const missingKey = await run(s, GSM8K_RUNS, null);
  t.equal(missingKey.status, 400);
  t.equal(missingKey.body.error, 'idempotency_key_required');
  conforms(t, 'POST', RUNS, missingKey);

  const first = await run(s, GSM8K_RUNS, 'ex-1');
  t.equal(first.status, 202);
  conforms(t, 'POST', RUNS, first);
  t.match(first.body, { id: /^wl_/, status: 'accepted', revision: 1 });
  t.equal(first.body.workload_id, first.body.id);
  t.equal(first.headers.get('idempotent-replayed'), null, 'a fresh admission is not marked replayed');

  const expected = (await s.call('GET', '/v1/rl-environments/gsm8k/examples/gsm8k-trained/workload')).body.workload;
  const w = await s.call('GET', `/v1/workloads/${first.body.id}`);
  t.same(w.body.payload, expected, 'it submitted exactly the example\'s workload');
  t.equal(w.body.status, 'accepted');

  for (const body of [undefined, {}]) {
    const retry = await run(s, GSM8K_RUNS, 'ex-1', body);
    t.equal(retry.status, 202);
    t.equal(retry.headers.get('idempotent-replayed'), 'true');
    t.equal(retry.body.id, first.body.id, `a retry with ${JSON.stringify(body)} is the same run`);
  }
  const renamed = await run(s, GSM8K_RUNS, 'ex-1', { name: 'another name' });
  t.equal(renamed.status, 409, 'the same key with another name');
  t.equal(renamed.body.error, 'idempotency_conflict');
  conforms(t, 'POST', RUNS, renamed);
  const otherExample = await run(s, '/v1/rl-environments/graph-coloring/examples/graph-coloring-trained/runs', 'ex-1');
  t.equal(otherExample.status, 409, 'the same key with another example');
  t.equal(otherExample.body.error, 'idempotency_conflict');
  t.equal(workloadCount(s), 1);

  const named = await run(s, GSM8K_RUNS, 'ex-2', { name: 'my gsm8k run' });
  t.equal(named.status, 202);
  t.not(named.body.id, first.body.id);
  t.equal((await s.call('GET', `/v1/workloads/${named.body.id}`)).body.payload.name, 'my gsm8k run');
  t.equal((await run(s, GSM8K_RUNS, 'ex-2', { name: 'my gsm8k run' })).body.id, named.body.id);

  for (const [body, what] of [[{ name: 'n'.repeat(121) }, 'a name over 120'], [{ extra: 1 }, 'an unknown key'], [{ name: 3 }, 'a wrong type']] as const) {
    const bad = await run(s, GSM8K_RUNS, 'ex-3', body);
    t.equal(bad.status, 400, what);
    conforms(t, 'POST', RUNS, bad);
  }
  const nowhere = await run(s, '/v1/rl-environments/swe-smith/examples/anything/runs', 'ex-3');
  t.equal(nowhere.status, 404, 'no runnable example');
  t.equal((await run(s, GSM8K_RUNS, 'ex-3')).status, 202, 'a refused request leaves its key free');

  // The run goes through the lifecycle of a custom run for about the example's runtime.
  await advance(s, 2 * 3600);
  const done = await s.call('GET', `/v1/workloads/${first.body.id}`);
  t.equal(done.body.status, 'completed');
  t.ok(Date.parse(done.body.updated_at) - Date.parse(done.body.created_at) >= 60 * 60_000 * 0.8, 'about runtime_minutes long');
  const outputs = await s.call('GET', `/v1/workloads/${first.body.id}/outputs`);
  t.same(outputs.body.outputs.map((o: any) => [o.stage_id, o.name]), [['main', 'results.json']], 'the result files are its outputs');
});

t.test('a retry returns the original run even after the catalog changed; sections a file omits stay built in', async (t) => {
  const first = await startInProcess(t);
  const original = await run(first, GSM8K_RUNS, 'before-change');
  t.equal(original.status, 202);
  const { key } = first;
  await first.close();

  // The new catalog has no gsm8k at all, and another environment of its own.
  const file = environmentsFile(first, (doc) => {
    doc.environments = doc.environments.filter((e: any) => e.id !== 'gsm8k');
    doc.environments.push({ ...doc.environments[0], id: 'my-env', name: 'Mine' });
  });
  const s = await startInProcess(t, { db: first.dbPath, catalog: file });
  const replay = await run(s, GSM8K_RUNS, 'before-change', undefined, key);
  t.equal(replay.status, 202);
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  t.equal(replay.body.id, original.body.id, 'the original run');
  const fresh = await run(s, GSM8K_RUNS, 'after-change', undefined, key);
  t.equal(fresh.status, 404, 'a new run of an example the catalog no longer has');

  t.same((await s.call('GET', '/v1/rl-environments')).body.environments.map((e: any) => e.id), ['graph-coloring', 'swe-smith', 'my-env']);
  t.equal((await s.call('GET', '/v1/rl-recipes')).body.recipes.length, 8, 'the built-in recipes stay');

  // The newer SDK submits a catalog example itself, as a plain POST /v1/workloads: any catalog id is accepted.
  const sdkBody = (environmentId: string) => ({
    requirements: {},
    outcome: {},
    continuity: { mode: 'checkpointed', resume_on_interruption: true },
    stages: [{ id: 'main', source: { image: 'pytorch/pytorch:2.14.0-cuda12.6-cudnn9-runtime', command: ['sh', '-c', 'python train.py'] }, outputs: { 'results.json': 'outputs/results.json' } }],
    rl: { schema_version: 1, environment_id: environmentId, mode: 'train', model: 'Qwen/Qwen3-0.6B', planned_tasks: 64 },
  });
  const sdk = await s.call('POST', '/v1/workloads', { body: sdkBody('my-env'), headers: { 'idempotency-key': 'sdk-1' } });
  t.equal(sdk.status, 202, 'an environment only the environment catalog serves');
  conforms(t, 'POST', '/v1/workloads', sdk);
  const unknown = await s.call('POST', '/v1/workloads', { body: sdkBody('not-in-any-catalog'), headers: { 'idempotency-key': 'sdk-2' } });
  t.equal(unknown.status, 400);
  t.equal(unknown.body.error, 'invalid_rl');
});
