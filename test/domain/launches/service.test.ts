import t from '../../helpers/tap.js';
import { RLRecipeRequest, RLRunRequest } from '../../../openapi/rl-recipes.js';
import { DomainError } from '../../../server/domain/errors.js';
import { domainServices } from '../../helpers/domain.js';
import { legCounting } from '../../helpers/rl.js';

const preview = (d: ReturnType<typeof domainServices>, tenant: string, overrides: Record<string, unknown> = {}) =>
  d.services.launches.preview(tenant, RLRecipeRequest.parse(legCounting(overrides)));

const launchBody = (p: Awaited<ReturnType<typeof preview>>, overrides: Record<string, unknown> = {}) =>
  RLRunRequest.parse({ ...p.configuration, review_token: p.review_token, ...overrides });

const workloadIds = (d: ReturnType<typeof domainServices>, tenant: string) =>
  d.store.workloads.list(tenant, [], 100, 0).map((row) => row.id);

t.test('preview, launch, a same-key replay and a conflicting reuse, without a server', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const reviewed = await preview(d, tenant);
  t.equal(reviewed.launchable, true);
  t.match(reviewed.review_token, /\S/);

  const first = await d.services.launches.launch(tenant, 'run-1', launchBody(reviewed));
  t.match(first, { replayed: false, submitted: { status: 'accepted', revision: 1 } });
  const id = first.submitted.id;
  t.match(id, /^wl_/);

  const again = await d.services.launches.launch(tenant, 'run-1', launchBody(reviewed));
  t.same(again, { replayed: true, submitted: first.submitted }, 'the earlier answer');
  t.same(workloadIds(d, tenant), [id], 'one workload for the key');

  const other = launchBody(await preview(d, tenant, { seed: 7 }));
  await t.rejects(d.services.launches.launch(tenant, 'run-1', other), { refusal: 'conflict', code: 'idempotency_conflict' });
  t.same(workloadIds(d, tenant), [id], 'a conflict creates nothing');

  await t.rejects(d.services.launches.launch(tenant, 'run-2', launchBody(reviewed, { seed: 7 })), { refusal: 'conflict', code: 'review_changed' },
    'a token from another configuration');
  t.same(workloadIds(d, tenant), [id], 'a refused launch leaves its key free and creates nothing');
  const second = await d.services.launches.launch(tenant, 'run-2', other);
  t.equal(second.replayed, false, 'the refused key admits the corrected request');
});

t.test('a keyed launch is per tenant: the same key in another tenant is another run', async (t) => {
  const d = domainServices(t);
  const [a, b] = [d.tenant(), d.tenant()];
  const first = await d.services.launches.launch(a, 'same', launchBody(await preview(d, a)));
  const second = await d.services.launches.launch(b, 'same', launchBody(await preview(d, b)));
  t.equal(second.replayed, false);
  t.not(second.submitted.id, first.submitted.id);
});

t.test('the admission levers reach preview and launch', async (t) => {
  const d = domainServices(t);
  const tenant = d.tenant();
  const reviewed = await preview(d, tenant);

  d.services.control.overrideRecipe(tenant, 'reasoning-gym-leg-counting', { available: false, unavailable_reason: 'drained' });
  t.match(await preview(d, tenant), { launchable: false, review_token: '', blocking_reasons: ['recipe_unavailable: drained'] });
  await t.rejects(d.services.launches.launch(tenant, 'paused', launchBody(reviewed)), { refusal: 'unavailable', code: 'rl_unavailable' });
  d.services.control.overrideRecipe(tenant, 'reasoning-gym-leg-counting', { available: true });

  d.services.control.setBudget(tenant, { monthly_spend_cap_usd: 0.000001 });
  const blocked = await preview(d, tenant);
  t.equal(blocked.launchable, false);
  t.match(blocked.blocking_reasons, [/^budget_exceeded: /]);
  await t.rejects(d.services.launches.launch(tenant, 'capped', launchBody(reviewed)), { refusal: 'over_budget', code: 'budget_exceeded' });
  d.services.control.removeBudget(tenant);
  t.equal((await d.services.launches.launch(tenant, 'capped', launchBody(reviewed))).replayed, false, 'admitted once the cap is gone');
  t.equal(workloadIds(d, tenant).length, 1);
});

t.test('the recipe list follows each tenant\'s overrides; one object per availability state', async (t) => {
  const d = domainServices(t);
  const [a, b] = [d.tenant(), d.tenant()];
  const { recipes } = d.services.launches;
  const initial = recipes(a);
  t.equal(recipes(a), initial, 'unchanged overrides: the same list');
  t.equal(recipes(b), initial, 'another tenant in the same state: the same list');
  t.same(initial.recipes.map((r) => r.id), d.services.context.catalog.recipes.map((r) => r.id), 'catalog order');

  d.services.control.overrideRecipe(a, 'gsm8k-grpo-lora', { available: false, unavailable_reason: 'paused for a test' });
  const patched = recipes(a);
  t.not(patched, initial, 'a changed state is a new list, never the old one changed');
  t.match(patched.recipes.find((r) => r.id === 'gsm8k-grpo-lora'), { available: false, unavailable_reason: 'paused for a test' });
  t.equal(initial.recipes.find((r) => r.id === 'gsm8k-grpo-lora')?.available, true, 'the earlier list is untouched');
  t.equal(recipes(b), initial, 'the other tenant keeps the catalog state');

  d.services.control.overrideRecipe(a, 'gsm8k-grpo-lora', { available: true });
  t.same(recipes(a), initial, 'back to the catalog state');
});

t.test('catalog and example lookups answer 404s that name what is missing', async (t) => {
  const d = domainServices(t);
  t.throws(() => d.services.catalog.environment('no-such-env'), new DomainError('not_found', 'not_found', 'environment no-such-env not found'));
  t.equal(d.services.catalog.environment('gsm8k').id, 'gsm8k');
  t.throws(() => d.services.launches.exampleWorkload('gsm8k', 'nope'), { refusal: 'not_found', message: 'example nope of environment gsm8k not found' });
  t.throws(() => d.services.launches.exampleWorkload('swe-smith', 'anything'), { refusal: 'not_found', message: /listed only/ });
  const workload = d.services.launches.exampleWorkload('gsm8k', 'gsm8k-trained');
  t.match(workload, { rl: { environment_id: 'gsm8k', example_id: 'gsm8k-trained' } });
});
