import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { legCounting } from '../../helpers/rl.js';
import { freshKey, startInProcess } from '../../helpers/server.js';

const preview = (s: Awaited<ReturnType<typeof startInProcess>>, body: unknown, key?: string) =>
  s.call('POST', '/v1/rl-runs/preview', { body, key });

t.test('preview normalises: every default filled, phases and outputs for the mode', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const res = await preview(s, {});
  t.equal(res.status, 200);
  conforms(t, 'POST', '/v1/rl-runs/preview', res);
  t.same(res.body.configuration, {
    recipe_id: 'reasoning-gym-leg-counting',
    recipe_version: '1.0.0',
    mode: 'evaluate',
    evaluation_tasks: 16,
    training_steps: 20,
    seed: 42,
    include_traces: false,
  });
  t.same(res.body.phases.map((p: any) => p.id), ['evaluation']);
  t.same(res.body.outputs.map((o: any) => o.name), ['results.json']);
  t.equal(res.body.launchable, true);
  t.same(res.body.blocking_reasons, []);
  t.match(res.body.review_token, /^[0-9a-f]{64}$/);
  t.equal(res.headers.get('etag'), `"${res.body.review_token}"`);
  t.equal(res.body.recipe.id, 'reasoning-gym-leg-counting');

  const train = await preview(s, legCounting({ mode: 'train', training_steps: 30 }));
  t.equal(train.status, 200);
  conforms(t, 'POST', '/v1/rl-runs/preview', train);
  t.same(train.body.phases.map((p: any) => p.id), ['baseline', 'training', 'evaluation', 'export']);
  for (const p of train.body.phases) t.ok(p.label && p.description, `${p.id} has label and description`);
  t.same(train.body.outputs.map((o: any) => o.name), ['results.json', 'adapter_model.safetensors', 'adapter_config.json']);

  const traced = await preview(s, legCounting({ include_traces: true, max_cost_usd: 5 }));
  t.equal(traced.body.configuration.include_traces, true);
  t.equal(traced.body.configuration.max_cost_usd, 5, 'the deprecated field is echoed, not enforced');
});

t.test('the estimate grows with tasks and steps and is dated in virtual time', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const small = (await preview(s, legCounting({ evaluation_tasks: 8 }))).body.estimate;
  const large = (await preview(s, legCounting({ evaluation_tasks: 64 }))).body.estimate;
  const train = (await preview(s, legCounting({ mode: 'train', evaluation_tasks: 64, training_steps: 10 }))).body.estimate;
  const longer = (await preview(s, legCounting({ mode: 'train', evaluation_tasks: 64, training_steps: 50 }))).body.estimate;
  t.equal(small.status, 'estimated');
  for (const [a, b] of [[small, large], [large, train], [train, longer]]) {
    for (const f of ['execution_seconds', 'completion_seconds', 'compute_cost_usd']) {
      t.ok(b[f].low > a[f].low && b[f].high > a[f].high, `${f} grows`);
      t.ok(a[f].low <= a[f].high);
    }
  }
  t.ok(small.completion_seconds.low > small.execution_seconds.low, 'completion includes queueing and provisioning');
  const now = Date.parse((await s.call('GET', '/_mock/clock')).body.now);
  t.equal(Date.parse(small.valid_until), now + 15 * 60 * 1000);
  await s.call('POST', '/_mock/clock/advance', { body: { seconds: 7200 } });
  const later = (await preview(s, legCounting())).body.estimate;
  t.equal(Date.parse(later.valid_until), now + 7200_000 + 15 * 60 * 1000);
});

t.test('review tokens: deterministic, bound to tenant and configuration, survive restarts', async (t) => {
  const s = await startInProcess(t);
  const token = async (body: unknown, key?: string) => (await preview(s, body, key)).body.review_token as string;
  const base = await token(legCounting());
  t.equal(await token(legCounting()), base, 'same request, same token');
  t.equal(await token({ mode: 'evaluate', recipe_version: '1.0.0', recipe_id: 'reasoning-gym-leg-counting' }), base, 'key order does not matter');
  t.equal(await token(legCounting({ evaluation_tasks: 16, seed: 42, include_traces: false })), base, 'explicit defaults equal implicit ones');
  const variants = [
    legCounting({ seed: 43 }),
    legCounting({ evaluation_tasks: 17 }),
    legCounting({ mode: 'train' }),
    legCounting({ include_traces: true }),
    legCounting({ training_steps: 21 }),
    legCounting({ max_cost_usd: 1 }),
  ];
  const tokens = new Set([base]);
  for (const v of variants) tokens.add(await token(v));
  t.equal(tokens.size, variants.length + 1, 'any change gives another token');
  t.not(await token(legCounting(), freshKey()), base, 'another tenant, another token');

  const db = s.dbPath;
  const key = s.key;
  await s.close();
  const again = await startInProcess(t, { db });
  const after = await again.call('POST', '/v1/rl-runs/preview', { body: legCounting(), key });
  t.equal(after.body.review_token, base, 'the secret is kept in the database');
});

t.test('every validation error is a 400 that names the field', async (t) => {
  const s = await startInProcess(t);
  const cases: [string, unknown, string, string][] = [
    ['unknown key', legCounting({ temperature: 0.7 }), 'invalid_request', 'body.temperature'],
    ['explicit null', legCounting({ seed: null }), 'invalid_request', 'body.seed'],
    ['null recipe', { recipe_id: null }, 'invalid_request', 'body.recipe_id'],
    ['string number', legCounting({ evaluation_tasks: '16' }), 'invalid_request', 'body.evaluation_tasks'],
    ['float', legCounting({ evaluation_tasks: 16.5 }), 'invalid_request', 'body.evaluation_tasks'],
    ['contract max', legCounting({ evaluation_tasks: 65 }), 'invalid_request', 'body.evaluation_tasks'],
    ['contract min', legCounting({ evaluation_tasks: 3 }), 'invalid_request', 'body.evaluation_tasks'],
    ['steps max', legCounting({ training_steps: 51 }), 'invalid_request', 'body.training_steps'],
    ['negative seed', legCounting({ seed: -1 }), 'invalid_request', 'body.seed'],
    ['huge seed', legCounting({ seed: 2147483648 }), 'invalid_request', 'body.seed'],
    ['bool traces', legCounting({ include_traces: 'yes' }), 'invalid_request', 'body.include_traces'],
    ['bad mode', legCounting({ mode: 'finetune' }), 'invalid_request', 'body.mode'],
    ['unknown recipe', { recipe_id: 'no-such-recipe' }, 'unknown_recipe', 'body.recipe_id'],
    ['unknown version', legCounting({ recipe_version: '9.9.9' }), 'unknown_recipe', 'body.recipe_version'],
    ['recipe limits', { recipe_id: 'gsm8k-grpo-lora', evaluation_tasks: 4 }, 'invalid_request', 'body.evaluation_tasks'],
    ['recipe step limits', { recipe_id: 'gsm8k-grpo-lora', mode: 'train', training_steps: 2 }, 'invalid_request', 'body.training_steps'],
    ['mode the recipe lacks', { recipe_id: 'swe-smith-repair', mode: 'train' }, 'invalid_request', 'body.mode'],
    ['not an object', [1, 2], 'invalid_request', 'body'],
    ['review token in preview', legCounting({ review_token: 'a'.repeat(64) }), 'invalid_request', 'body.review_token'],
  ];
  for (const [name, body, code, field] of cases) {
    const res = await preview(s, body);
    t.equal(res.status, 400, name);
    t.equal(res.body.error, code, `${name}: code`);
    t.match(res.body.message, field, `${name}: message names ${field}`);
    conforms(t, 'POST', '/v1/rl-runs/preview', res);
  }
  const dup = await s.call('POST', '/v1/rl-runs/preview', {
    raw: '{"mode":"evaluate","mode":"train"}',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(dup.status, 400, 'a repeated key is refused');
  t.match(dup.body.message, 'body.mode');
});

t.test('unavailable recipes and budgets block the preview with an empty token', async (t) => {
  const s = await startInProcess(t);
  const swe = await preview(s, { recipe_id: 'swe-smith-repair' });
  t.equal(swe.status, 200);
  conforms(t, 'POST', '/v1/rl-runs/preview', swe);
  t.match(swe.body, { launchable: false, review_token: '', estimate: { status: 'unavailable', valid_until: null, compute_cost_usd: null } });
  t.match(swe.body.blocking_reasons[0], /^recipe_unavailable: /);
  t.notOk(swe.headers.get('etag'));

  await s.call('PATCH', '/_mock/recipes/reasoning-gym-leg-counting', { body: { available: false, unavailable_reason: 'runtime not qualified' } });
  const paused = await preview(s, legCounting());
  t.match(paused.body, { launchable: false, review_token: '', recipe: { available: false, unavailable_reason: 'runtime not qualified' } });
  t.match(paused.body.blocking_reasons, [/runtime not qualified/]);
  await s.call('PATCH', '/_mock/recipes/reasoning-gym-leg-counting', { body: { available: true } });

  await s.call('PUT', '/_mock/budget', { body: { monthly_spend_cap_usd: 0.01 } });
  const broke = await preview(s, legCounting());
  t.equal(broke.status, 200);
  t.match(broke.body, { launchable: false, review_token: '', estimate: { status: 'estimated' } });
  t.match(broke.body.blocking_reasons, [/^budget_exceeded: /]);
  await s.call('DELETE', '/_mock/budget');
  t.equal((await preview(s, legCounting())).body.launchable, true, 'removing the cap unblocks');
});
