import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { freshKey, startInProcess } from '../../helpers/server.js';

t.test('GET /v1/rl-recipes lists the catalog with every required field', async (t) => {
  const s = await startInProcess(t);
  const res = await s.call('GET', '/v1/rl-recipes');
  t.equal(res.status, 200);
  conforms(t, 'GET', '/v1/rl-recipes', res);
  const byId = new Map<string, any>(res.body.recipes.map((r: any) => [r.id, r]));
  const leg = byId.get('reasoning-gym-leg-counting');
  t.match(leg, {
    version: '1.0.0',
    environment_id: 'reasoning-gym',
    model: 'Qwen/Qwen3-0.6B',
    model_revision: /^[0-9a-f]{40}$/,
    modes: ['evaluate', 'train'],
    available: true,
    defaults: { evaluation_tasks: 16, training_steps: 20, seed: 42 },
    held_out_measures: /held-out/,
  });
  t.notOk('unavailable_reason' in leg, 'omitted while available');
  t.ok(byId.has('gsm8k-grpo-lora'));
  t.ok(byId.has('graph-coloring-grpo-lora'));
  const unavailable = res.body.recipes.filter((r: any) => !r.available);
  t.equal(unavailable.length, 1);
  t.type(unavailable[0].unavailable_reason, 'string');
  // The strict SDK needs these non-empty.
  for (const r of res.body.recipes) {
    for (const f of ['id', 'version', 'environment_id', 'name', 'model', 'model_revision', 'taskset']) t.ok(r[f].length > 0, `${r.id}.${f}`);
    for (const server of ['runtime', 'pricing', 'simulation', 'private_grading']) t.notOk(server in r, `${server} stays server-side`);
  }
});

t.test('availability overrides are per tenant', async (t) => {
  const s = await startInProcess(t);
  const patched = await s.call('PATCH', '/_mock/recipes/reasoning-gym-leg-counting', {
    body: { available: false, unavailable_reason: 'capacity drained for maintenance' },
  });
  t.equal(patched.status, 200);
  t.match(patched.body, { available: false, unavailable_reason: 'capacity drained for maintenance' });
  const mine = (await s.call('GET', '/v1/rl-recipes')).body.recipes.find((r: any) => r.id === 'reasoning-gym-leg-counting');
  t.match(mine, { available: false, unavailable_reason: 'capacity drained for maintenance' });
  const theirs = (await s.call('GET', '/v1/rl-recipes', { key: freshKey() })).body.recipes.find((r: any) => r.id === 'reasoning-gym-leg-counting');
  t.match(theirs, { available: true });

  const restored = await s.call('PATCH', '/_mock/recipes/swe-smith-repair', { body: { available: true } });
  t.equal(restored.body.available, true, 'a tenant may also open a catalog-unavailable recipe');
  t.notOk('unavailable_reason' in restored.body);

  t.equal((await s.call('PATCH', '/_mock/recipes/no-such-recipe', { body: { available: false } })).status, 404);
  t.equal((await s.call('PATCH', '/_mock/recipes/Bad_Id', { body: { available: false } })).status, 400);
  t.equal((await s.call('PATCH', '/_mock/recipes/gsm8k-grpo-lora', { body: { available: true, unavailable_reason: 'x' } })).status, 400);
  t.equal((await s.call('PATCH', '/_mock/recipes/gsm8k-grpo-lora', { body: {} })).status, 400);
});
