import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from '../../helpers/tap.js';
import { advance, drainEvents, launchRun, legCounting, secondsToFinish } from '../../helpers/rl.js';
import { freshKey, startInProcess, withKey, type TestServer } from '../../helpers/server.js';
import { submitCustom } from '../../helpers/evidence.js';
import { journalBeforeVersion4 } from '../../helpers/snapshot.js';

const TRAIN = legCounting({ mode: 'train', training_steps: 10, evaluation_tasks: 10, seed: 7 });
const EVALUATE = legCounting({ evaluation_tasks: 10, seed: 7 });

async function manual(s: TestServer) {
  const res = await s.call('PUT', '/_mock/clock', { body: { mode: 'manual' } });
  if (res.status !== 200) throw new Error(res.text);
}

async function addRule(s: TestServer, rule: Record<string, unknown>) {
  const res = await s.call('POST', '/_mock/workload-rules', { body: rule });
  if (res.status !== 201) throw new Error(`rule: ${res.status} ${res.text}`);
  return res.body;
}

const rules = async (s: TestServer) => (await s.call('GET', '/_mock/workload-rules')).body.rules;
const generations = (rows: any[]) => [...new Set(rows.map((e) => e.generation))];

t.test('a rule made before the launch recovers the run when training step 3 begins, replaying and dropping events', async (t) => {
  const s = await startInProcess(t);
  await manual(s);
  const rule = await addRule(s, {
    match: { mode: 'train' },
    at: { phase: 'training', step: 3 },
    action: [{ type: 'recover', replay_last: 5 }, { type: 'drop_events', count: 2 }],
  });
  t.match(rule, { id: /^wr_[0-9A-Za-z]{16}$/, match: { mode: 'train' }, source: 'api', matched: 0, bound: 0, workloads: [] });
  const { id, preview } = await launchRun(s, TRAIN);
  await advance(s, secondsToFinish(preview));
  const { rows, last } = await drainEvents(s, id);
  t.same(generations(rows), [1, 2], 'the run went on in generation 2');
  const first = rows.filter((e) => e.generation === 1);
  const replayed = rows.filter((e) => e.generation === 2).slice(0, 5);
  t.equal(replayed.length, 5);
  t.same(replayed.map((e) => e.event.event_id), first.slice(-5).map((e) => e.event.event_id), 'the last 5 events of generation 1 come again first in generation 2, same event ids');
  t.equal(last.dropped_events, 2);
  t.equal(last.truncated, true);
  // Step 3 begins as step 2 ends: the recovery starts right then.
  const steps = (await s.call('GET', `/v1/workloads/${id}/events?after=0`)).body.events;
  const step2 = steps.find((e: any) => e.event_type === 'rl.training_step' && e.payload.step === 2);
  const recovering = steps.find((e: any) => e.event_type === 'workload.status' && e.payload.status === 'recovering');
  t.ok(step2 && recovering, 'both in the lifecycle');
  t.ok(Date.parse(recovering.created_at) - Date.parse(step2.created_at) <= 2, 'recovering 1 ms after step 2 ended');
  t.equal((await s.call('GET', `/v1/workloads/${id}`)).body.status, 'completed');
  const [listed] = await rules(s);
  t.match(listed, { matched: 1, bound: 1, pending: 0, applied: 1, skipped: 0, workloads: [{ workload_id: id, state: 'applied', note: null }] });
  t.equal(listed.workloads[0].settled_at, step2.created_at, 'settled when its trigger came');
});

t.test('match: mode, kind, recipe and nth decide which workloads a rule binds; another tenant\'s launches never', async (t) => {
  const s = await startInProcess(t);
  const other = withKey(s, freshKey());
  await manual(s);
  await addRule(s, { match: { mode: 'evaluate', nth: 2 }, at: { reads: 1 }, action: { type: 'fail' } });
  await addRule(s, { match: { kind: 'custom' }, at: { reads: 1 }, action: { type: 'fail' } });
  await addRule(s, { match: { recipe_id: 'no-such-recipe' }, at: { reads: 1 }, action: { type: 'fail' } });
  await launchRun(other, EVALUATE);
  const evaluations = [];
  for (let i = 0; i < 3; i++) evaluations.push((await launchRun(s, EVALUATE)).id);
  await launchRun(s, TRAIN);
  const custom = await submitCustom(s);
  const [nth, kind, recipe] = await rules(s);
  t.match(nth, { matched: 3, bound: 1, workloads: [{ workload_id: evaluations[1] }] }, 'the second evaluation of this tenant only');
  t.match(kind, { matched: 1, bound: 1, workloads: [{ workload_id: custom }] });
  t.match(recipe, { matched: 0, bound: 0 });
  t.same(await rules(other), [], 'rules belong to their tenant');
});

t.test('running_seconds fails the run that long after it starts running; a trigger that never comes is skipped with why', async (t) => {
  const s = await startInProcess(t);
  await manual(s);
  await addRule(s, { at: { running_seconds: 5 }, action: { type: 'fail', reason: 'node lost' } });
  await addRule(s, { at: { phase: 'training' }, action: { type: 'recover' } });
  const { id, preview } = await launchRun(s, EVALUATE);
  await advance(s, secondsToFinish(preview));
  const workload = (await s.call('GET', `/v1/workloads/${id}`)).body;
  t.equal(workload.status, 'failed');
  const events = (await s.call('GET', `/v1/workloads/${id}/events?after=0`)).body.events;
  const running = events.find((e: any) => e.event_type === 'workload.status' && e.payload.status === 'running');
  const failed = events.find((e: any) => e.event_type === 'workload.failed');
  t.equal(failed.payload.reason, 'node lost');
  t.equal(Date.parse(failed.created_at) - Date.parse(running.created_at), 5_001, '5 s after running, 1 ms after the trigger');
  const [fail, recover] = await rules(s);
  t.match(fail.workloads, [{ state: 'applied' }]);
  t.match(recover.workloads, [{ state: 'skipped', note: 'the run ended (failed) before phase training' }], 'an evaluation has no training phase');
});

t.test('events: n acts once the run has emitted n task events; an action the state forbids is noted, never an error', async (t) => {
  const s = await startInProcess(t);
  await manual(s);
  await addRule(s, { at: { events: 7 }, action: [{ type: 'drop_events', count: 3 }, { type: 'recover' }] });
  const { id, preview } = await launchRun(s, EVALUATE);
  await advance(s, secondsToFinish(preview));
  const { rows, last } = await drainEvents(s, id);
  t.equal(last.dropped_events, 3);
  t.same(generations(rows), [1, 2], 'the recovery applied too');
  // A rule on a run that has ended: counted as skipped, with each refusal.
  await addRule(s, { at: { reads: 1 }, action: [{ type: 'recover' }, { type: 'fail' }] });
  const late = await launchRun(s, EVALUATE);
  await advance(s, secondsToFinish(late.preview));
  const read = await s.call('GET', `/v1/workloads/${late.id}/rl-events`);
  t.equal(read.status, 200, 'the read that triggered it answers as usual');
  const [, readRule] = await rules(s);
  t.match(readRule.workloads, [{ workload_id: late.id, state: 'skipped', note: /^recover: cannot recover workload wl_\w+ while it is completed; fail: cannot fail/ }]);
});

t.test('reads: n catches a reader between two pages', async (t) => {
  const s = await startInProcess(t);
  await manual(s);
  await addRule(s, { at: { reads: 2 }, action: { type: 'recover', replay_last: 3 } });
  const { id } = await launchRun(s, TRAIN);
  await advance(s, 200);
  t.equal((await s.call('GET', `/v1/workloads/${id}`)).body.status, 'running');
  const page = (after?: string) => s.call('GET', `/v1/workloads/${id}/rl-events?limit=5${after ? `&after=${encodeURIComponent(after)}` : ''}`);
  const one = await page();
  const two = await page(one.body.next_cursor);
  t.equal(two.status, 200);
  t.same(generations(two.body.events), [1], 'the second page was read before the rule applied');
  t.equal((await s.call('GET', `/v1/workloads/${id}`)).body.status, 'recovering', 'and the run is recovering right after it');
  await advance(s, 3600);
  const { rows } = await drainEvents(s, id);
  t.same(generations(rows), [1, 2]);
  const [rule] = await rules(s);
  t.match(rule.workloads, [{ state: 'applied' }]);
});

t.test('the same rules, seed and clock moves on two fresh servers give the same event pages, ids mapped', async (t) => {
  const run = async () => {
    const s = await startInProcess(t);
    await manual(s);
    await addRule(s, { at: { phase: 'training', step: 2 }, action: [{ type: 'recover', replay_last: 4 }, { type: 'drop_events', count: 1 }] });
    await addRule(s, { at: { running_seconds: 200 }, action: { type: 'recover', replay_last: 2 } });
    const { id } = await launchRun(s, TRAIN);
    const createdMs = Date.parse((await s.call('GET', `/v1/workloads/${id}`)).body.created_at);
    const pages = [];
    for (let i = 0; i < 12; i++) {
      await advance(s, 97);
      pages.push((await drainEvents(s, id, undefined, 13)).rows);
    }
    // Event ids hash the workload id: each is named by where it first appears. Each tenant's
    // clock started at the wall time it was made: times count from the workload's creation.
    const names = new Map<string, number>();
    return pages.map((rows) => rows.map(({ received_at, event: { event_id, ...event }, ...row }) => {
      if (!names.has(event_id)) names.set(event_id, names.size);
      return { ...row, after_ms: Date.parse(received_at) - createdMs, event: { ...event, event_id: names.get(event_id) } };
    }));
  };
  const [a, b] = [await run(), await run()];
  t.ok(a.at(-1)!.length > 50, 'the run got far');
  t.same(a, b);
});

t.test('deleting a rule ends its pending bindings; DELETE of an unknown or another tenant\'s rule is 404', async (t) => {
  const s = await startInProcess(t);
  await manual(s);
  const rule = await addRule(s, { at: { reads: 1 }, action: { type: 'fail' } });
  const { id } = await launchRun(s, EVALUATE);
  t.equal((await withKey(s, freshKey()).call('DELETE', `/_mock/workload-rules/${rule.id}`)).status, 404);
  t.equal((await s.call('DELETE', '/_mock/workload-rules/wr_0000000000000000')).status, 404);
  t.equal((await s.call('DELETE', `/_mock/workload-rules/${rule.id}`)).status, 204);
  t.same(await rules(s), []);
  await s.call('GET', `/v1/workloads/${id}/rl-events`);
  t.not((await s.call('GET', `/v1/workloads/${id}`)).body.status, 'failed', 'the deleted rule never applied');
  const binding = s.store.db.prepare('SELECT state, note FROM workload_rule_bindings WHERE workload_id = ?').get(id);
  t.same(binding, { state: 'skipped', note: 'the rule was deleted' });
  await addRule(s, { at: { reads: 1 }, action: { type: 'fail' } });
  t.equal((await s.call('DELETE', '/_mock/workload-rules')).status, 204);
  t.same(await rules(s), []);
});

t.test('a rule is checked as the API checks its parts', async (t) => {
  const s = await startInProcess(t);
  const refused = async (body: unknown, message: RegExp) => {
    const res = await s.call('POST', '/_mock/workload-rules', { body });
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(res.body, { error: 'invalid_request', message });
  };
  await refused({ at: { phase: 'baseline', step: 2 }, action: { type: 'fail' } }, /^body\.at\.step: only allowed with phase training$/);
  await refused({ at: { reads: 1, events: 2 }, action: { type: 'fail' } }, /^body\.at: names exactly one of phase, running_seconds, events, reads \(got events, reads\)$/);
  await refused({ at: { minutes: 1 }, action: { type: 'fail' } }, /^body\.at\.minutes: unknown field/);
  await refused({ action: { type: 'fail' } }, /^body\.at: /);
  await refused({ at: { reads: 1 }, action: [] }, /^body\.action: /);
  await refused({ at: { reads: 1 }, action: { type: 'drop_events' } }, /^body\.action\.count: /);
  await refused({ at: { reads: 1 }, action: [{ type: 'fail' }, { type: 'recover', replay_last: -1 }] }, /^body\.action\.1\.replay_last: /);
  await refused({ at: { reads: 1 }, action: { type: 'nope' } }, /^body\.action\.type: /);
  await refused({ at: { reads: 1 }, action: { type: 'fail' }, match: { nth: 0 } }, /^body\.match\.nth: /);
  await refused({ at: { reads: 1 }, action: { type: 'grading_plan', receipts: 'x' } }, /^body\.action\.receipts: /);
});

t.test('a grading plan arrives by rule, the same as PUT .../grading-plan', async (t) => {
  const s = await startInProcess(t);
  await manual(s);
  await addRule(s, { at: { phase: 'evaluation' }, action: { type: 'grading_plan', revision: 1 } });
  const { id, preview } = await launchRun(s, EVALUATE);
  await advance(s, secondsToFinish(preview));
  const results = await s.call('GET', `/v1/workloads/${id}/rl-grading-results?revision=1`);
  t.equal(results.status, 200, results.text);
  t.equal(results.body.revision, 1);
  const [rule] = await rules(s);
  t.match(rule.workloads, [{ state: 'applied' }]);
});

t.test('a scenario file\'s workload_rules bind the launches of its key; a snapshot carries rules and bindings, a fork shifts their ids', async (t) => {
  const probe = await startInProcess(t);
  const file = join(dirname(probe.dbPath), 'rules.json');
  writeFileSync(file, JSON.stringify({
    keys: { nk_test_rules: { clock: { mode: 'manual' }, workload_rules: [{ at: { phase: 'training', step: 2 }, action: { type: 'recover', replay_last: 2 } }] } },
  }));
  const s = withKey(await startInProcess(t, { scenario: file }), 'nk_test_rules');
  const [rule] = await rules(s);
  t.match(rule, { source: 'scenario' });
  const { id, preview } = await launchRun(s, TRAIN);
  await advance(s, secondsToFinish(preview) / 2);
  const snapshot = (await s.call('GET', '/_mock/snapshot')).body;
  t.equal(snapshot.version, 4);
  t.match(snapshot.tenant.tables.workload_rules, [{ id: rule.id, source: 'scenario' }]);
  t.match(snapshot.tenant.tables.workload_rule_bindings, [{ workload_id: id, rule_id: rule.id }]);
  t.match(snapshot.tenant.tables.workload_interventions, [{ kind: 'recover', args: JSON.stringify({ replayLast: 2, rule: rule.id }) }], 'the intervention names the rule that made it');
  const fork = withKey(s, freshKey());
  t.equal((await fork.call('PUT', '/_mock/snapshot', { body: snapshot })).status, 200);
  const [copy] = await rules(fork);
  t.not(copy.id, rule.id, 'the fork\'s rule has an id of its own');
  t.match(copy, { matched: 1, bound: 1, workloads: [{ workload_id: /^wl_/ }] });
  t.not(copy.workloads[0].workload_id, id);
  // The original and the fork go on alike.
  await advance(s, secondsToFinish(preview));
  await advance(fork, secondsToFinish(preview));
  const a = await drainEvents(s, id);
  const b = await drainEvents(fork, copy.workloads[0].workload_id);
  t.same(generations(b.rows), generations(a.rows));
  t.equal(b.rows.length, a.rows.length);
});

t.test('a version 2 snapshot (no workload rules) still restores; a pending binding naming no rule is refused', async (t) => {
  const s = await startInProcess(t);
  await manual(s);
  await addRule(s, { at: { reads: 1 }, action: { type: 'fail' } });
  await launchRun(s, EVALUATE);
  const snapshot = (await s.call('GET', '/_mock/snapshot')).body;
  const { workload_rules: rulesRows, workload_rule_bindings: bindings, ...older } = snapshot.tenant.tables;
  const v2 = { ...snapshot, version: 2, tenant: { ...snapshot.tenant, tables: { ...older, request_journal: journalBeforeVersion4(older.request_journal) } } };
  const restored = await s.call('PUT', '/_mock/snapshot', { body: v2 });
  t.equal(restored.status, 200, restored.text);
  t.same(await rules(s), [], 'a version 2 tenant had no rules');
  const v3missing = await s.call('PUT', '/_mock/snapshot', { body: { ...snapshot, tenant: { ...snapshot.tenant, tables: { ...older, workload_rules: rulesRows } } } });
  t.match(v3missing.body, { error: 'invalid_snapshot', message: /workload_rule_bindings: is required from version 3 on/ });
  const orphan = await s.call('PUT', '/_mock/snapshot', { body: { ...snapshot, tenant: { ...snapshot.tenant, tables: { ...older, workload_rules: [], workload_rule_bindings: bindings } } } });
  t.match(orphan.body, { error: 'invalid_snapshot', message: /workload_rule_bindings\.0\.rule_id: names workload_rules id wr_\w+, which this snapshot does not hold/ });
});

t.test('advance until a rule has applied, or a status only a rule brings, stops right there; a rule that cannot apply is a 409', async (t) => {
  const s = await startInProcess(t);
  await manual(s);
  const rule = await addRule(s, { match: { mode: 'train' }, at: { phase: 'training', step: 4 }, action: { type: 'recover' } });
  const failing = await addRule(s, { match: { mode: 'evaluate' }, at: { running_seconds: 3 }, action: { type: 'fail' } });
  const waiting = await addRule(s, { match: { mode: 'evaluate' }, at: { reads: 5 }, action: { type: 'fail' } });
  const train = await launchRun(s, TRAIN);
  const advanceUntil = (until: unknown) => s.call('POST', '/_mock/clock/advance', { body: { until } });
  const recovering = await advanceUntil({ workload_id: train.id, status: 'recovering' });
  t.equal(recovering.status, 200, recovering.text);
  const [listed] = await rules(s);
  t.equal(Date.parse(recovering.body.now), Date.parse(listed.workloads[0].settled_at) + 1, 'at the recovery the rule made, 1 ms after its trigger');
  t.equal((await s.call('GET', `/v1/workloads/${train.id}`)).body.status, 'recovering');
  t.same((await advanceUntil({ rule: rule.id })).body, { now: recovering.body.now, held: true }, 'the rule has applied: nothing moves');

  const evaluation = await launchRun(s, EVALUATE);
  const failed = await advanceUntil({ rule: failing.id });
  t.equal(failed.status, 200);
  t.equal((await s.call('GET', `/v1/workloads/${evaluation.id}`)).body.status, 'failed');
  const idle = await advanceUntil('idle');
  t.equal(idle.status, 200);
  t.equal(idle.body.now, (await s.call('GET', `/v1/workloads/${train.id}`)).body.updated_at, 'idle when the recovered run completes');

  const unreachable = await advanceUntil({ rule: waiting.id });
  t.equal(unreachable.status, 409);
  t.match(unreachable.body, { error: 'condition_unreachable', message: `the condition cannot hold: workload rule ${waiting.id} waits only for reads of rl-events, which moving the clock does not make` });
  t.equal((await advanceUntil({ rule: 'wr_0000000000000000' })).status, 404);
});
