import type { Test } from 'tap';
import t from '../helpers/tap.js';
import { z } from 'zod';
import { RLRecipeList } from '../../openapi/rl-recipes.js';
import { freshKey, startServer, type CallResult } from '../helpers/server.js';
import { refusedAt } from '../helpers/zod-verdict.js';

/**
 * GET /v1/rl-recipes sends bytes it encoded once and cached (routes/v1/rl-recipes.ts), past the
 * response serializer. Each answer must be what that serializer would have sent: a body the
 * declared schema accepts, byte for byte the schema's own encoding of it.
 */
function sendsWhatTheSchemaEncodes(t: Test, res: CallResult, label: string): z.output<typeof RLRecipeList> {
  t.equal(res.status, 200, `${label}: status`);
  t.equal(res.headers.get('content-type'), 'application/json; charset=utf-8', `${label}: content type`);
  const body = JSON.parse(res.text);
  t.same(refusedAt(RLRecipeList, body), [], `${label}: the declared schema accepts the body`);
  const parsed = RLRecipeList.safeParse(body);
  if (!parsed.success) return { recipes: [] };
  t.equal(res.text, JSON.stringify(z.encode(RLRecipeList, parsed.data)), `${label}: the bytes are the schema's encoding`);
  return parsed.data;
}

t.test('every cached availability state of GET /v1/rl-recipes is what its response schema sends', async (t) => {
  const s = await startServer(t);
  const byId = (list: z.output<typeof RLRecipeList>) => new Map(list.recipes.map((r) => [r.id, r]));

  const first = sendsWhatTheSchemaEncodes(t, await s.call('GET', '/v1/rl-recipes'), 'catalog state');
  sendsWhatTheSchemaEncodes(t, await s.call('GET', '/v1/rl-recipes'), 'the same tenant again, from the cache');
  sendsWhatTheSchemaEncodes(t, await s.call('GET', '/v1/rl-recipes', { key: freshKey() }), 'another tenant in the same state');
  t.equal(byId(first).get('swe-smith-repair')?.available, false, 'the catalog state has an unavailable recipe');

  await s.call('PATCH', '/_mock/recipes/reasoning-gym-leg-counting', { body: { available: false, unavailable_reason: 'drained' } });
  await s.call('PATCH', '/_mock/recipes/swe-smith-repair', { body: { available: true } });
  const patched = byId(sendsWhatTheSchemaEncodes(t, await s.call('GET', '/v1/rl-recipes'), 'patched state'));
  t.match(patched.get('reasoning-gym-leg-counting'), { available: false, unavailable_reason: 'drained' });
  t.notOk('unavailable_reason' in patched.get('swe-smith-repair')!, 'an opened recipe loses its reason');
  sendsWhatTheSchemaEncodes(t, await s.call('GET', '/v1/rl-recipes'), 'patched state, from the cache');
});
