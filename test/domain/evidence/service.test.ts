import t from '../../helpers/tap.js';
import { RLRecipeRequest } from '../../../openapi/rl-recipes.js';
import { RLGradingReceipt } from '../../../openapi/rl-evidence.js';
import { domainServices, refusal, submit } from '../../helpers/domain.js';
import { attempt, phaseEvents } from '../../helpers/evidence.js';
import { legCounting } from '../../helpers/rl.js';

// The evidence service over `:memory:`: ingest, event pages and their cursors, logs, the summary
// and grading, each one call, without a server.

const rl = (mode = 'train') => ({ rl: { schema_version: 1, environment_id: 'custom', mode, model: 'my-model', planned_tasks: 16 } });
const line = (event: object) => `nodus.rl_event ${JSON.stringify(event)}`;

t.test('ingest keeps the valid events in order; pages walk them with cursors only this workload takes', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { evidence } = services;
  const tenant = newTenant();
  const id = await submit(services, tenant, rl());
  const events = phaseEvents('baseline', 3, 2);
  const result = evidence.ingest(tenant, id, { events: [...events, { kind: 'nonsense' }] }, {});
  t.match(result, { workload_id: id, stage_id: 'main', generation: 1, accepted: 6, duplicates: 0, dropped: 0 });
  t.same(result.rejected.map((r) => [r.index, r.error]), [[6, 'invalid_event']]);
  t.equal(evidence.ingest(tenant, id, { events }, {}).duplicates, 6, 'the same events again are duplicates');

  const first = evidence.eventPage(tenant, id, undefined, 4);
  t.equal(first.events.length, 4);
  t.equal(first.hasMore, true);
  t.match(first.counters, { dropped: 0, truncated: false, count: 6 });
  const rest = evidence.eventPage(tenant, id, first.nextCursor, 4);
  t.equal(rest.hasMore, false);
  t.same([...first.events, ...rest.events].map((r) => JSON.parse(r.event).event_id), events.map((e) => e.event_id), 'every row once, in order');
  t.equal(evidence.eventPage(tenant, id, rest.nextCursor, 4).nextCursor, rest.nextCursor, 'past the end the cursor stays');
  t.same(evidence.eventPage(tenant, id, '', 4).events, first.events, 'an empty cursor starts at the beginning');

  const other = await submit(services, tenant, rl());
  t.same(refusal(() => evidence.eventPage(tenant, other, first.nextCursor, 4)), { refusal: 'invalid', code: 'invalid_cursor' }, 'another workload\'s cursor');
  t.same(refusal(() => evidence.eventPage(tenant, id, 'c1.1.forged', 4)), { refusal: 'invalid', code: 'invalid_cursor' });
  const logCursor = evidence.liveLog(tenant, id, undefined, undefined).nextCursor;
  t.same(refusal(() => evidence.eventPage(tenant, id, logCursor, 4)), { refusal: 'invalid', code: 'invalid_cursor' }, 'a log cursor is not an event cursor');
});

t.test('ingest targets: stage and generation from the body or the query, checked against the workload', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { evidence, workloads, context } = services;
  const tenant = newTenant();
  const id = await submit(services, tenant, rl());
  const events = attempt('baseline', 't0', 1, 'passed');
  t.same(refusal(() => evidence.ingest(tenant, 'wl_AAAAAAAAAAAAAAAAAAAA', undefined, {})), { refusal: 'invalid', code: 'invalid_request' }, 'no body: 400 whatever the id');
  t.same(refusal(() => evidence.ingest(tenant, id, { events, stage_id: 'nope' }, {})), { refusal: 'invalid', code: 'invalid_stage' });
  t.same(refusal(() => evidence.ingest(tenant, id, { events, generation: 2 }, {})), { refusal: 'invalid', code: 'invalid_generation' });
  t.same(refusal(() => evidence.ingest(tenant, id, { events, generation: 1 }, { generation: 1 })), { refusal: 'invalid', code: 'invalid_request' }, 'both places');
  t.equal(evidence.eventPage(tenant, id, undefined, 100).events.length, 0, 'a refused request stores nothing');

  context.units.atNow(tenant, (unit) => unit.advanceClock(120));
  workloads.recover(tenant, id);
  context.units.atNow(tenant, (unit) => unit.advanceClock(120));
  t.match(evidence.ingest(tenant, id, { events }, { generation: 1 }), { generation: 1, accepted: 2 }, 'an earlier generation from the query');
  t.match(evidence.ingest(tenant, id, { events }, {}), { generation: 2, accepted: 2 }, 'by default the current one');

  const evaluate = await submit(services, tenant, rl('evaluate'));
  t.same(evidence.ingest(tenant, evaluate, { events }, {}).rejected, [], 'baseline events are fine in evaluate mode');
  t.same(evidence.ingest(tenant, evaluate, { events: attempt('training', 't0', 1, 'passed') }, {}).rejected.map((r) => r.error), ['phase_not_allowed', 'phase_not_allowed']);
});

t.test('a managed recipe run takes no ingested events', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { launches, evidence } = services;
  const tenant = newTenant();
  const preview = await launches.preview(tenant, RLRecipeRequest.parse(legCounting()));
  const launched = await launches.launch(tenant, 'recipe', { ...preview.configuration, review_token: preview.review_token! });
  const { id } = launched.submitted;
  t.same(refusal(() => evidence.ingest(tenant, id, { events: [] }, {})), { refusal: 'conflict', code: 'recipe_run' });
});

t.test('a text body is logged as the workload printed it; logs and live pages read it back', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { evidence } = services;
  const tenant = newTenant();
  const id = await submit(services, tenant, rl());
  t.same(refusal(() => evidence.log(tenant, id, {})), { refusal: 'not_found', code: 'not_found' }, 'no log before its first line');
  const [started, completed] = attempt('baseline', 't0', 1, 'passed');
  const text = ['step 1', line(started), 'step 2', line(completed), 'nodus.rl_event {broken'].join('\n');
  const result = evidence.ingest(tenant, id, text, {});
  t.equal(result.accepted, 2);
  t.same(result.rejected.map((r) => [r.line, r.error]), [[5, 'invalid_json']]);

  const { attempt: served, lines } = evidence.log(tenant, id, {});
  t.same(lines, text.split('\n'), 'every line, the event lines included');
  t.match(served, { stageId: 'main', generation: 1, truncated: false });
  t.same(refusal(() => evidence.log(tenant, id, { generation: 2 })), { refusal: 'not_found', code: 'not_found' });
  t.same(refusal(() => evidence.log(tenant, id, { member: 'm0' })), { refusal: 'not_found', code: 'not_found' }, 'not distributed');

  const live = evidence.liveLog(tenant, id, undefined, undefined);
  t.same(live.lines.map((l) => l.line), text.split('\n'));
  t.equal(live.truncated, false);
  t.same(evidence.liveLog(tenant, id, live.nextCursor, undefined).lines, [], 'nothing after the last line yet');
  const eventCursor = evidence.eventPage(tenant, id, undefined, 1).nextCursor;
  t.same(refusal(() => evidence.liveLog(tenant, id, eventCursor, undefined)), { refusal: 'invalid', code: 'invalid_cursor' }, 'an event cursor is not a log cursor');
  t.same(refusal(() => evidence.liveLog(tenant, id, undefined, 'm0')), { refusal: 'not_found', code: 'not_found' });
});

t.test('summary tallies the latest report of each attempt and counts what was dropped', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { evidence, workloads } = services;
  const tenant = newTenant();
  const id = await submit(services, tenant, rl());
  evidence.ingest(tenant, id, { events: [...phaseEvents('baseline', 4, 1), ...phaseEvents('evaluation', 4, 3)] }, {});
  const summary = evidence.summary(tenant, id);
  t.match(summary.phases.baseline, { attempts: 4, passed: 1, failed: 3, pass_rate: 0.25 });
  t.match(summary.phases.evaluation, { attempts: 4, passed: 3, pass_rate: 0.75 });
  t.match(summary.comparison, { comparable: true, measurable: true, reason: 'comparable', change_pp: 50 });
  workloads.dropEvents(tenant, id, 2);
  t.match(evidence.summary(tenant, id), { dropped_events: 2, truncated: true, comparison: { comparable: false, reason: 'incomplete_events' } });
});

t.test('grading: a derived plan, its results, and receipts naming another plan as the unverifiable 500', async (t) => {
  const { services, tenant: newTenant } = domainServices(t);
  const { evidence } = services;
  const tenant = newTenant();
  const id = await submit(services, tenant, rl());
  t.same(refusal(() => evidence.gradingResults(tenant, id, 1)), { refusal: 'not_found', code: 'not_found' }, 'no plan yet');
  evidence.ingest(tenant, id, { events: phaseEvents('evaluation', 3, 2) }, {});

  const derived = evidence.putGradingPlan(tenant, id, {});
  t.match(derived, { workload_id: id, revision: 1, source: 'derived' });
  t.equal(derived.receipts.length, 3, 'one receipt per finished evaluation attempt');
  const results = evidence.gradingResults(tenant, id, 1);
  t.match(results, { schema_version: 1, workload_id: id, revision: 1, plan_sha256: derived.plan_sha256, parent_status: 'accepted' });
  t.same(results.receipts, derived.receipts);
  for (const receipt of results.receipts) t.ok(RLGradingReceipt.safeParse(receipt).success, 'each receipt is an RLGradingReceipt');

  const given = evidence.putGradingPlan(tenant, id, { revision: 2, plan_sha256: 'b'.repeat(64), receipts: derived.receipts });
  t.equal(given.source, 'given');
  t.same(refusal(() => evidence.gradingResults(tenant, id, 2)), { refusal: 'unverifiable', code: 'grading_results_unavailable' });
  t.same(refusal(() => evidence.gradingResults(tenant, id, 3)), { refusal: 'not_found', code: 'not_found' });
});
