import { writeFileSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import t from '../../helpers/tap.js';
import { DEFAULT_CATALOG_PATH } from '../../../server/domain/catalog/index.js';
import { conforms } from '../../helpers/contract.js';
import { legCounting, previewAndLaunch, workloadCount } from '../../helpers/rl.js';
import { freshKey, startInProcess, startServer, type TestServer } from '../../helpers/server.js';

const launch = (s: TestServer, body: unknown, key: string | undefined) =>
  s.call('POST', '/v1/rl-runs', { body, headers: key === undefined ? {} : { 'idempotency-key': key } });

t.test('launch answers 202 SubmitResult; a same-key retry replays byte for byte', async (t) => {
  const s = await startInProcess(t);
  const { preview, launch: first } = await previewAndLaunch(s, legCounting(), 'run-001');
  t.equal(first.status, 202);
  conforms(t, 'POST', '/v1/rl-runs', first);
  t.match(first.body, { id: /^wl_[A-Za-z0-9]{20}$/, status: 'accepted', revision: 1 });
  t.equal(first.body.workload_id, first.body.id);
  t.equal(first.headers.get('idempotent-replayed'), null, 'no replay header on a first answer');

  const body = { ...preview.body.configuration, review_token: preview.body.review_token };
  const retry = await launch(s, body, 'run-001');
  t.equal(retry.status, 202);
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.equal(retry.text, first.text, 'byte-identical body');
  t.equal(workloadCount(s), 1);

  const reordered = Object.fromEntries(Object.entries(body).reverse());
  t.equal((await launch(s, reordered, 'run-001')).headers.get('idempotent-replayed'), 'true', 'key order is not a different request');

  const other = await launch(s, body, 'run-002');
  t.equal(other.status, 202, 'a new key is a new run');
  t.not(other.body.id, first.body.id);
  t.equal(workloadCount(s), 2);
});

t.test('a retry of the same bytes is answered by the key\'s hook, from memory, without the launch', async (t) => {
  const s = await startInProcess(t);
  const { preview, launch: first } = await previewAndLaunch(s, legCounting(), 'run-001');
  const body = { ...preview.body.configuration, review_token: preview.body.review_token };
  // The first retry reads the key's record from the file, and memory keeps it from then on.
  t.equal((await launch(s, body, 'run-001')).text, first.text);
  const { launches } = s.app.services;
  const launched = t.capture(launches, 'launch', launches.launch);
  t.equal((await launch(s, body, 'run-001')).text, first.text);
  t.equal(launched.calls.length, 0, 'the route\'s hook asked the launches\' memory (rl_run.launch), not another operation\'s');
  const reordered = Object.fromEntries(Object.entries(body).reverse());
  t.equal((await launch(s, reordered, 'run-001')).text, first.text);
  t.equal(launched.calls.length, 1, 'other bytes take the whole path, and replay there');
});

t.test('the workload carries rl metadata and server-owned provenance', async (t) => {
  const s = await startInProcess(t);
  const { preview, launch: res } = await previewAndLaunch(s, legCounting({ mode: 'train', training_steps: 10 }), 'prov');
  const tenant = (await s.call('GET', '/v1/me')).body.tenant;
  const row = s.store.workloads.get(tenant, res.body.id)!;
  const payload = JSON.parse(row.payload);
  t.match(payload.rl, {
    schema_version: 1,
    environment_id: 'reasoning-gym',
    mode: 'train',
    model: 'Qwen/Qwen3-0.6B',
    planned_tasks: 2 * 16 + 10 * 8,
    recipe: {
      id: 'reasoning-gym-leg-counting',
      version: '1.0.0',
      runtime_image: /rl-runtime/,
      model_revision: /^[0-9a-f]{40}$/,
      config_sha256: /^[0-9a-f]{64}$/,
      request_sha256: /^[0-9a-f]{64}$/,
      review_token: preview.body.review_token,
    },
  });
  t.equal(row.status, 'accepted');
});

t.test('Idempotency-Key: required, bounded, printable', async (t) => {
  const s = await startInProcess(t);
  const p = (await s.call('POST', '/v1/rl-runs/preview', { body: legCounting() })).body;
  const body = { ...p.configuration, review_token: p.review_token };
  const missing = await launch(s, body, undefined);
  t.equal(missing.status, 400);
  t.equal(missing.body.error, 'idempotency_key_required');
  const missingAndBadBody = await launch(s, { nonsense: true }, undefined);
  t.equal(missingAndBadBody.body.error, 'idempotency_key_required', 'the key is checked first');
  for (const bad of ['x'.repeat(257), 'has space', 'tab\there', 'café']) {
    const res = await s.call('POST', '/v1/rl-runs', { body, headers: { 'idempotency-key': bad } });
    t.equal(res.status, 400, JSON.stringify(bad));
    t.equal(res.body.error, 'invalid_idempotency_key');
  }
  t.equal((await launch(s, body, 'k'.repeat(256))).status, 202, '256 characters is fine');
  t.equal(workloadCount(s), 1);
});

t.test('review_token: format, binding, review_changed', async (t) => {
  const s = await startInProcess(t);
  const p = (await s.call('POST', '/v1/rl-runs/preview', { body: legCounting() })).body;
  const noToken = await launch(s, p.configuration, 'a');
  t.equal(noToken.status, 400);
  t.match(noToken.body.message, 'body.review_token');
  for (const bad of ['', 'A'.repeat(64), 'a'.repeat(63), 'g'.repeat(64)]) {
    const res = await launch(s, { ...p.configuration, review_token: bad }, 'a');
    t.equal(res.status, 400, `token ${JSON.stringify(bad)}`);
  }
  const changed = await launch(s, { ...p.configuration, seed: 7, review_token: p.review_token }, 'b');
  t.equal(changed.status, 409);
  t.equal(changed.body.error, 'review_changed');
  conforms(t, 'POST', '/v1/rl-runs', changed);
  const forged = await launch(s, { ...p.configuration, review_token: 'a'.repeat(64) }, 'c');
  t.equal(forged.body.error, 'review_changed');
  const otherTenant = await s.call('POST', '/v1/rl-runs', {
    body: { ...p.configuration, review_token: p.review_token },
    headers: { 'idempotency-key': 'd' },
    key: 'nk_test_someone_else',
  });
  t.equal(otherTenant.body.error, 'review_changed', 'a token is bound to its tenant');
  t.equal(workloadCount(s), 0);
  const fixed = await launch(s, { ...p.configuration, review_token: p.review_token }, 'b');
  t.equal(fixed.status, 202, 'a refused request leaves its key free for a corrected retry');
});

t.test('a changed runtime since review is review_changed; a replay still replays', async (t) => {
  const first = await startInProcess(t);
  const { preview, launch: launched } = await previewAndLaunch(first, legCounting(), 'before-change');
  const p2 = (await first.call('POST', '/v1/rl-runs/preview', { body: legCounting({ seed: 5 }) })).body;
  const { dbPath, key } = first;
  await first.close();

  const catalog = JSON.parse(readFileSync(DEFAULT_CATALOG_PATH(), 'utf8'));
  catalog.recipes[0].runtime.image = 'ghcr.io/nodus-compute/rl-runtime:2026.12.0';
  const file = join(dirname(dbPath), 'catalog.json');
  writeFileSync(file, JSON.stringify(catalog));
  const s = await startInProcess(t, { db: dbPath, catalog: file });
  const stale = await s.call('POST', '/v1/rl-runs', {
    body: { ...p2.configuration, review_token: p2.review_token },
    headers: { 'idempotency-key': 'after-change' },
    key,
  });
  t.equal(stale.status, 409);
  t.equal(stale.body.error, 'review_changed');
  const replay = await s.call('POST', '/v1/rl-runs', {
    body: { ...preview.body.configuration, review_token: preview.body.review_token },
    headers: { 'idempotency-key': 'before-change' },
    key,
  });
  t.equal(replay.status, 202);
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  t.equal(replay.body.id, launched.body.id, 'the original run, even though the catalog changed');
});

t.test('a retry answered from memory is its own tenant\'s: the same key and bytes from another are that tenant\'s request', async (t) => {
  const s = await startInProcess(t);
  const { preview, launch: first } = await previewAndLaunch(s, legCounting(), 'shared-key');
  const raw = JSON.stringify({ ...preview.body.configuration, review_token: preview.body.review_token });
  const send = (key?: string) => s.call('POST', '/v1/rl-runs', { raw, headers: { 'content-type': 'application/json', 'idempotency-key': 'shared-key' }, key });
  for (let i = 0; i < 3; i++) t.equal((await send()).text, first.text, 'the owner\'s retries replay');
  const other = await send(freshKey());
  t.equal(other.headers.get('idempotent-replayed'), null);
  t.equal(other.status, 409);
  t.equal(other.body.error, 'review_changed', 'the other tenant\'s launch is checked as its own: the review token is not its');
  t.equal(workloadCount(s), 1);
});

t.test('same key, different request: 409 idempotency_conflict', async (t) => {
  const s = await startInProcess(t);
  await previewAndLaunch(s, legCounting(), 'shared-key');
  const { launch: reused } = await previewAndLaunch(s, legCounting({ seed: 9 }), 'shared-key');
  t.equal(reused.status, 409);
  t.equal(reused.body.error, 'idempotency_conflict');
  t.match(reused.body.message, /new key/);
  conforms(t, 'POST', '/v1/rl-runs', reused);
  t.equal(workloadCount(s), 1);
});

t.test('admission: 503 rl_unavailable and 402 budget_exceeded with the arithmetic', async (t) => {
  const s = await startInProcess(t);
  const p = (await s.call('POST', '/v1/rl-runs/preview', { body: legCounting() })).body;
  const body = { ...p.configuration, review_token: p.review_token };

  await s.call('PATCH', '/_mock/recipes/reasoning-gym-leg-counting', { body: { available: false, unavailable_reason: 'launches paused' } });
  const paused = await launch(s, body, 'k1');
  t.equal(paused.status, 503);
  t.equal(paused.body.error, 'rl_unavailable');
  t.match(paused.body.message, 'launches paused');
  conforms(t, 'POST', '/v1/rl-runs', paused);
  await s.call('PATCH', '/_mock/recipes/reasoning-gym-leg-counting', { body: { available: true } });

  const estimate = p.estimate.compute_cost_usd.high;
  await s.call('PUT', '/_mock/budget', { body: { monthly_spend_cap_usd: 10, month_to_date_usd: 10 - estimate / 2 } });
  const broke = await launch(s, body, 'k1');
  t.equal(broke.status, 402);
  t.equal(broke.body.error, 'budget_exceeded');
  conforms(t, 'POST', '/v1/rl-runs', broke);
  const b = broke.body;
  t.equal(b.monthly_spend_cap_usd, 10);
  t.ok(Math.abs(b.month_to_date_usd - (10 - estimate / 2)) < 1e-6);
  t.equal(b.estimated_cost_usd, estimate);
  t.equal(b.accruing_usd, 0);
  t.equal(b.in_flight_committed_usd, 0);
  t.ok(Math.abs(b.remaining_headroom_usd - estimate / 2) < 1e-6);

  await s.call('PUT', '/_mock/budget', { body: { monthly_spend_cap_usd: estimate * 1.5 } });
  t.equal((await launch(s, body, 'k1')).status, 202, 'fits the headroom');
  const second = await launch(s, body, 'k2');
  t.equal(second.status, 402, 'the first run is now committed in flight');
  t.ok(Math.abs(second.body.in_flight_committed_usd - estimate) < 1e-6);
  t.equal(workloadCount(s), 1);
});

// On a socket: the requests arrive together, as the SDK's retries would.
t.test('50 concurrent launches with one key: one workload, 50 successes', async (t) => {
  const s = await startServer(t);
  const p = (await s.call('POST', '/v1/rl-runs/preview', { body: legCounting() })).body;
  const body = { ...p.configuration, review_token: p.review_token };
  const answers = await Promise.all(Array.from({ length: 50 }, () => launch(s, body, 'storm-key')));
  t.same([...new Set(answers.map((a) => a.status))], [202]);
  t.equal(new Set(answers.map((a) => a.body.id)).size, 1, 'one workload id');
  t.equal(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true').length, 49);
  t.equal(workloadCount(s), 1);
});

t.test('keys expire after the TTL of virtual time', async (t) => {
  const s = await startInProcess(t, { clock: 'manual', idempotencyTtl: 3600 });
  const { preview, launch: first } = await previewAndLaunch(s, legCounting(), 'ttl-key');
  const body = { ...preview.body.configuration, review_token: preview.body.review_token };
  await s.call('POST', '/_mock/clock/advance', { body: { seconds: 3599 } });
  t.equal((await launch(s, body, 'ttl-key')).body.id, first.body.id, 'still remembered');
  await s.call('POST', '/_mock/clock/advance', { body: { seconds: 2 } });
  const after = await launch(s, body, 'ttl-key');
  t.equal(after.status, 202);
  t.not(after.body.id, first.body.id, 'an expired key starts a new run');
  t.equal(after.headers.get('idempotent-replayed'), null);
  t.equal(workloadCount(s), 2);
});
