import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from '../helpers/tap.js';
import { loadCatalog } from '../../server/domain/catalog/index.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { loadScenario } from '../../server/domain/control/scenarios.js';
import { MAIN } from '../helpers/cli.js';
import { call, startInProcess, tempDbPath, withKey, type TestServer } from '../helpers/server.js';
import { launchRun, legCounting } from '../helpers/rl.js';

const FLAKY = join(packageRoot(), 'scenarios', 'flaky-launch.json');
const DEGRADED = join(packageRoot(), 'scenarios', 'degraded-evidence.json');
const RECOVERED = join(packageRoot(), 'scenarios', 'recovered-training.json');
const LATE_GRADING = join(packageRoot(), 'scenarios', 'late-grading.json');

/** Writes `document` next to a temporary database and answers its path. */
function scenarioFile(dbPath: string, name: string, document: unknown): string {
  const file = join(dirname(dbPath), name);
  writeFileSync(file, typeof document === 'string' ? document : JSON.stringify(document));
  return file;
}

t.test('flaky-launch.json through the real CLI: dropped, then 429, then the replayed answer', async (t) => {
  const db = tempDbPath(t);
  const child = spawn(process.execPath, [MAIN, '--port', '0', '--db', db], {
    env: { ...process.env, LOG_LEVEL: 'silent', NODUS_MOCK_SCENARIO: FLAKY },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.teardown(() => child.kill('SIGKILL'));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const key = 'nk_test_flaky';
  const preview = await call(url, 'POST', '/v1/rl-runs/preview', key, { body: legCounting() });
  // What the SDK's launch() does: the same body and Idempotency-Key on every attempt.
  const attempt = () => call(url, 'POST', '/v1/rl-runs', key, {
    body: { ...preview.body.configuration, review_token: preview.body.review_token },
    headers: { 'idempotency-key': 'flaky-001' },
  });
  await t.rejects(attempt(), 'attempt 1: committed, no answer (a connection error the SDK retries)');
  const limited = await attempt();
  t.equal(limited.status, 429, 'attempt 2: RateLimitError, retried');
  t.equal(limited.headers.get('retry-after'), '1');
  t.equal(limited.body.error, 'rate_limited');
  const third = await attempt();
  t.equal(third.status, 202, 'attempt 3 succeeds');
  t.equal(third.headers.get('idempotent-replayed'), 'true', 'with the answer of the committed first attempt');
  const sent = (await call(url, 'GET', '/_mock/requests?path=/v1/rl-runs', key)).body.requests;
  t.match(sent, [{ status: 202, replayed: true }, { status: 429, fault: 'error' }, { status: null, fault: 'drop_response' }]);
  t.equal(new Set(sent.map((r: any) => r.idempotency_key)).size, 1, 'one key throughout');
  const other = await call(url, 'GET', '/_mock/faults', 'nk_test_someone_else');
  t.same(other.body.faults, [], 'other keys are untouched');
});

t.test('degraded-evidence.json: a manual clock, a 503 then slow event reads', async (t) => {
  const s = await startInProcess(t, { scenario: DEGRADED, maxEventsPerWorkload: 50 });
  const key = 'nk_test_degraded';
  t.equal((await s.call('GET', '/_mock/clock', { key })).body.mode, 'manual');
  const faults = (await s.call('GET', '/_mock/faults', { key })).body.faults;
  t.same(faults.map((f: any) => [f.source, f.action.type]), [['scenario', 'error'], ['scenario', 'delay']]);
  const first = await s.call('GET', '/v1/workloads/wl_anything/rl-events?limit=10', { key });
  t.equal(first.status, 503);
  t.equal(first.headers.get('retry-after'), '1');
  const slowed = await s.call('GET', '/v1/workloads/wl_anything/rl-events', { key });
  const [entry] = (await s.call('GET', '/_mock/requests?limit=1&path=/v1/workloads/*', { key })).body.requests;
  t.match(entry, { request_id: slowed.headers.get('x-request-id'), fault: 'delay', fault_id: faults[1].id }, 'the next read is slowed');
  t.equal((await s.call('GET', '/_mock/clock')).body.mode, 'realtime', 'other keys keep the default clock');
});

/**
 * The application under test, which keeps its run's id to itself: it launches a train run and
 * reads its task evidence as the SDK's docs do (client.rl.events with after=next_cursor until
 * has_more is false, polling while the workload is active, once more after it ends). It answers
 * the rows and the last page only.
 */
async function launchAndReadEvidence(s: TestServer, key: string) {
  const { id } = await launchRun(withKey(s, key), legCounting({ mode: 'train', training_steps: 10, evaluation_tasks: 8 }));
  const rows: any[] = [];
  let cursor: string | undefined;
  let last: any;
  let readWhileActive = 0;
  for (let ended = false; ;) {
    const page = await s.call('GET', `/v1/workloads/${id}/rl-events?limit=100${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`, { key });
    rows.push(...page.body.events);
    cursor = page.body.next_cursor;
    last = page.body;
    if (!ended) readWhileActive += page.body.events.length;
    if (page.body.has_more) continue;
    if (ended) return { rows, last, readWhileActive };
    ended = ['completed', 'failed', 'cancelled'].includes((await s.call('GET', `/v1/workloads/${id}`, { key })).body.status);
  }
}

t.test('recovered-training.json: an application that launches its own run reads generations 1 and 2, the replayed events in both, and the drops', async (t) => {
  const s = await startInProcess(t, { scenario: RECOVERED });
  const { rows, last, readWhileActive } = await launchAndReadEvidence(s, 'nk_test_recovery');
  t.ok(readWhileActive > 0, `the reader saw ${readWhileActive} rows while the run was active`);
  t.same([...new Set(rows.map((r) => r.generation))], [1, 2]);
  const ids = (generation: number) => rows.filter((r) => r.generation === generation).map((r) => r.event.event_id);
  const replayed = ids(1).slice(-5);
  t.same(ids(2).slice(0, 5), replayed, 'the last 5 task events of generation 1 come first in generation 2, with the same event_ids');
  t.equal(last.dropped_events, 2);
  t.equal(last.truncated, true);
  const [rule] = (await s.call('GET', '/_mock/workload-rules', { key: 'nk_test_recovery' })).body.rules;
  t.match(rule, { source: 'scenario', matched: 1, bound: 1, applied: 1 });
});

t.test('late-grading.json: an evaluation\'s grading plan arrives after the client\'s second read of its events', async (t) => {
  const s = withKey(await startInProcess(t, { scenario: LATE_GRADING }), 'nk_test_late_grading');
  const { id } = await launchRun(s, legCounting({ recipe_id: 'arc-easy', evaluation_tasks: 8 }));
  await s.call('POST', '/_mock/clock/advance', { body: { until: 'idle' } });
  const results = () => s.call('GET', `/v1/workloads/${id}/rl-grading-results?revision=1`);
  t.equal((await results()).status, 404, 'no plan yet');
  await s.call('GET', `/v1/workloads/${id}/rl-events`);
  t.equal((await results()).status, 404, 'nor after one read');
  await s.call('GET', `/v1/workloads/${id}/rl-events`);
  const graded = await results();
  t.equal(graded.status, 200, 'after the second read it is there');
  t.equal(graded.body.receipts.length, 8, 'a receipt per evaluation task');
});

t.test('restarts do not apply an unchanged entry twice; a changed one replaces its faults', async (t) => {
  const dbPath = tempDbPath(t);
  const key = 'nk_test_flaky';
  const first = await startInProcess(t, { db: dbPath, scenario: FLAKY });
  await first.call('POST', '/v1/rl-runs', { body: {}, key }).catch(() => undefined); // the drop fires
  await first.call('POST', '/_mock/faults', { body: { path: '/v1/me', action: { type: 'reset' } }, key });
  await first.close();

  const second = await startInProcess(t, { db: dbPath, scenario: FLAKY });
  const kept = (await second.call('GET', '/_mock/faults', { key })).body.faults;
  t.same(kept.map((f: any) => [f.source, f.remaining]), [['scenario', 0], ['scenario', 1], ['api', 1]], 'same counts, no duplicates');
  await second.close();

  const changed = JSON.parse(readFileSync(FLAKY, 'utf8'));
  changed.keys[key].faults[1].action.retry_after = 3;
  const third = await startInProcess(t, { db: dbPath, scenario: scenarioFile(dbPath, 'changed.json', changed) });
  const replaced = (await third.call('GET', '/_mock/faults', { key })).body.faults;
  t.same(replaced.map((f: any) => [f.source, f.remaining]), [['api', 1], ['scenario', 1], ['scenario', 1]], 'scenario faults re-made, API ones kept');
  t.equal(replaced[2].action.retry_after, 3);

  t.equal((await third.call('POST', '/_mock/reset', { key })).status, 200);
  await third.close();
  const fourth = await startInProcess(t, { db: dbPath, scenario: FLAKY });
  t.equal((await fourth.call('GET', '/_mock/faults', { key })).body.faults.length, 2, 'after a reset the next start applies the entry again');
});

t.test('scenario errors name the entry and the field', async (t) => {
  const dbPath = tempDbPath(t);
  const catalog = loadCatalog();
  const entry = (e: unknown) => ({ keys: { nk_test_x: e } });
  const cases: [unknown, RegExp][] = [
    ['{"keys": ', /bad\.json: not valid JSON/],
    [{ keys: { nk_test_x: {} }, extra: 1 }, /bad\.json: \(top level\): Unrecognized key: "extra"/],
    [entry({ faults: [{ path: '/v1/me', action: { type: 'error', status: 700, error: 'x' } }] }), /bad\.json: keys\["nk_test_x"\]\.faults\[0\]\.action\.status: /],
    [entry({ faults: [{ path: 'nope', action: { type: 'reset' } }] }), /keys\["nk_test_x"\]\.faults\[0\]\.path: must start with \//],
    [entry({ clock: { mode: 'sometimes' } }), /keys\["nk_test_x"\]\.clock\.mode: /],
    [entry({ recipes: { 'reasoning-gym-leg-counting': { available: true, unavailable_reason: 'x' } } }),
      /keys\["nk_test_x"\]\.recipes\["reasoning-gym-leg-counting"\]\.unavailable_reason: only allowed with available false/],
    [entry({ recipes: { 'no-such-recipe': { available: false } } }), /keys\["nk_test_x"\]\.recipes\["no-such-recipe"\]: no such recipe/],
    [entry({ budget: { monthly_spend_cap_usd: -1 } }), /keys\["nk_test_x"\]\.budget\.monthly_spend_cap_usd: /],
    [entry({ wat: 1 }), /keys\["nk_test_x"\]: Unrecognized key: "wat"/],
    [entry({ workload_rules: [{ at: { phase: 'baseline', step: 2 }, action: { type: 'fail' } }] }), /keys\["nk_test_x"\]\.workload_rules\[0\]\.at\.step: only allowed with phase training/],
  ];
  for (const [document, pattern] of cases) {
    t.throws(() => loadScenario(scenarioFile(dbPath, 'bad.json', document), catalog), { name: 'ScenarioError', message: pattern });
  }
  t.throws(() => loadScenario(join(dirname(dbPath), 'missing.json'), catalog), { message: /missing\.json: cannot read/ });

  const foreign = scenarioFile(dbPath, 'foreign.json', { keys: { nk_live_x: {} } });
  await t.rejects(startInProcess(t, { scenario: foreign }), { name: 'ScenarioError', message: /foreign\.json: keys\["nk_live_x"\]: API keys on this mock start with nk_test_/ });
  const shared = scenarioFile(dbPath, 'shared.json', { keys: { k1: {}, k2: {} } });
  await t.rejects(startInProcess(t, { scenario: shared, keys: [{ key: 'k1', tenant: 'team' }, { key: 'k2', tenant: 'team' }] }), { message: /keys\["k2"\]: same tenant as keys\["k1"\]/ });
});

t.test('a scenario whose clock move would pass the end of the clock\'s range stops the start, naming the entry and the limit', async (t) => {
  const dbPath = tempDbPath(t);
  const near = await startInProcess(t, { db: dbPath });
  const key = 'nk_test_late';
  await near.call('GET', '/_mock/clock', { key });
  const tenantId = `tn_${createHash('sha256').update(key).digest('hex').slice(0, 20)}`;
  near.store.tenants.setClock(tenantId, { mode: 'manual', scale: null, anchorWallMs: 0, anchorVirtualMs: Date.UTC(4999, 11, 31) });
  await near.close();
  const file = scenarioFile(dbPath, 'late.json', { keys: { [key]: { clock: { mode: 'manual', advance_seconds: 7 * 24 * 3600 } } } });
  await t.rejects(startInProcess(t, { db: dbPath, scenario: file }), {
    name: 'ScenarioError',
    message: /late\.json: keys\["nk_test_late"\]: advancing 604800 s would move the clock to 5000-01-07T00:00:00\.000Z, past the end of its range, 5000-01-01T00:00:00\.000Z/,
  });
});

t.test('the CLI stops with exit 2 and one line on a bad scenario', async (t) => {
  const dbPath = tempDbPath(t);
  for (const [document, pattern] of [
    ['not json', /not valid JSON/],
    [{ keys: { nk_test_flaky: { faults: [{ path: '/v1/me', action: { type: 'delay', ms: 0 } }] } } }, /keys\["nk_test_flaky"\]\.faults\[0\]\.action\.ms: /],
  ] as const) {
    const file = scenarioFile(dbPath, 'cli.json', document);
    const r = spawnSync(process.execPath, [MAIN, '--port', '0', '--db', dbPath, '--scenario', file], {
      env: { ...process.env, LOG_LEVEL: 'silent' }, encoding: 'utf8',
    });
    t.equal(r.status, 2);
    t.equal(r.stderr.trim().split('\n').length, 1);
    t.match(r.stderr, /^nodus-mock: .*cli\.json: /);
    t.match(r.stderr, pattern);
  }
});
