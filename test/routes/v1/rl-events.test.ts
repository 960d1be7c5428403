import fc from 'fast-check';
import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { attempt, drainChecked, ingest, page, pageProblems, phaseEvents, submitCustom, summary } from '../../helpers/evidence.js';
import { advance, launchRun, legCounting, secondsToFinish } from '../../helpers/rl.js';
import { freshKey, startInProcess, type TestServer } from '../../helpers/server.js';

/** Events drawn from a small identity space, so duplicates, changed repeats and clashes occur. */
const eventArb = fc
  .record({
    id: fc.integer({ min: 0, max: 40 }),
    phase: fc.constantFrom('baseline', 'training', 'evaluation'),
    task: fc.constantFrom('a', 'b', 'c', 'd'),
    attempt: fc.integer({ min: 1, max: 3 }),
    outcome: fc.option(fc.constantFrom('passed', 'failed', 'error'), { nil: undefined }),
    message: fc.option(fc.string({ maxLength: 40 }).filter((m) => !/[\p{Cc}]/u.test(m)), { nil: undefined }),
  })
  .map(({ id, phase, task, attempt, outcome, message }) => ({
    event_id: `e${id}`,
    phase,
    task_id: task,
    attempt,
    ...(outcome ? { kind: 'task_completed', outcome } : { kind: 'task_started' }),
    ...(message !== undefined && { message }),
  }));

const sizesArb = fc.array(fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 200 })), { minLength: 1, maxLength: 6 });

const storedIds = (s: TestServer, id: string) => s.store.rlEvents.page(id, 0, 1_000_000).map((r) => String(r.seq));

/** Anything but a cursor this server issued for the workload. */
const forgedArb = fc.oneof(fc.string({ minLength: 1, maxLength: 64 }), fc.stringMatching(/^c1\.[0-9a-z]{1,3}\.[A-Za-z0-9_-]{22}$/));
const badLimitArb = fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 201 }), fc.constantFrom('abc', '1.5', ''));

async function refusal(s: TestServer, id: string, query: string, error: string) {
  const res = await page(s, id, query);
  if (res.status !== 400 || res.body.error !== error) throw new Error(`${query}: ${res.status} ${res.text}`);
}

t.test('property: any page sizes drain every stored row exactly once, in order', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  let previousCursor: string | undefined;
  await fc.assert(
    fc.asyncProperty(fc.array(eventArb, { maxLength: 30 }), fc.array(eventArb, { maxLength: 8 }), sizesArb, forgedArb, badLimitArb, async (events, more, sizes, forged, badLimit) => {
      const id = await submitCustom(s);
      await refusal(s, id, `?after=${encodeURIComponent(forged)}`, 'invalid_cursor');
      await refusal(s, id, `?limit=${encodeURIComponent(String(badLimit))}`, 'invalid_limit');
      // Another workload's cursor, even one that points at a row this workload has.
      if (previousCursor) await refusal(s, id, `?after=${encodeURIComponent(previousCursor)}`, 'invalid_cursor');
      const first = await ingest(s, id, events);
      if (first.status !== 200) throw new Error(first.text);
      const drained = await drainChecked(s, id, sizes);
      const ids = drained.rows.map((r) => r.id);
      if (JSON.stringify(ids) !== JSON.stringify(storedIds(s, id))) throw new Error(`drained ${ids} but stored ${storedIds(s, id)}`);
      if (ids.length !== first.body.accepted) throw new Error('accepted is not the number of new rows');
      if (ids.some((x, i) => i > 0 && BigInt(x) <= BigInt(ids[i - 1]))) throw new Error('ids not ascending');

      // Nothing new: the cursor stays where it is.
      const idle = await page(s, id, `?after=${encodeURIComponent(drained.cursor)}`);
      if (idle.body.next_cursor !== drained.cursor || idle.body.events.length || idle.body.has_more) throw new Error('idle poll moved');

      // Rows added later are exactly what the kept cursor sees next.
      const second = await ingest(s, id, more);
      const rest = [];
      let cursor = drained.cursor;
      for (let i = 0; ; i++) {
        const res = await page(s, id, `?limit=${sizes[i % sizes.length]}&after=${encodeURIComponent(cursor)}`);
        if (pageProblems(res).length) throw new Error(pageProblems(res).join('; '));
        rest.push(...res.body.events.map((r: any) => r.id));
        cursor = res.body.next_cursor;
        if (!res.body.has_more) break;
      }
      if (JSON.stringify([...ids, ...rest]) !== JSON.stringify(storedIds(s, id)) || rest.length !== second.body.accepted) {
        throw new Error('resuming from the kept cursor did not see exactly the new rows');
      }
      previousCursor = cursor;
    }),
    { numRuns: 25 },
  );
  t.pass('every drain matched the stored rows');
});

t.test('cursors are bound to their workload and refused when edited; limits are checked', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const [a, b] = [await submitCustom(s), await submitCustom(s)];
  const empty = await page(s, a, '');
  t.equal(empty.status, 200, 'a workload without events answers an empty page');
  t.same(pageProblems(empty), []);
  t.match(empty.body, { events: [], has_more: false, dropped_events: 0, truncated: false });

  await ingest(s, a, phaseEvents('evaluation', 3, 1));
  await ingest(s, b, phaseEvents('evaluation', 3, 1));
  const first = await page(s, a, '?limit=2');
  t.equal(first.body.has_more, true);
  const cursor: string = first.body.next_cursor;
  t.ok(cursor.length <= 64);

  const other = await page(s, b, `?after=${encodeURIComponent(cursor)}`);
  t.equal(other.status, 400, "another workload's cursor");
  t.equal(other.body.error, 'invalid_cursor');
  conforms(t, 'GET', '/v1/workloads/{id}/rl-events', other);
  const flip = (c: string, i: number) => c.slice(0, i) + (c[i] === 'a' ? 'b' : 'a') + c.slice(i + 1);
  const [prefix, seq] = cursor.split('.');
  const forged = [flip(cursor, cursor.length - 1), `${prefix}.${(parseInt(seq, 36) + 1).toString(36)}.${cursor.split('.')[2]}`, 'abc', '0', 'c1..x', 'x'.repeat(65), first.body.events[1].id];
  for (const bad of forged) {
    const res = await page(s, a, `?after=${encodeURIComponent(bad)}`);
    t.equal(res.body.error, 'invalid_cursor', `forged cursor ${bad.slice(0, 20)}: ${res.status}`);
  }
  for (const limit of ['0', '201', 'abc', '-1', '1.5']) {
    const res = await page(s, a, `?limit=${limit}`);
    t.equal(res.status, 400);
    t.equal(res.body.error, 'invalid_limit', `limit=${limit}`);
  }
  t.equal((await page(s, a, '', freshKey())).status, 404, "another tenant's workload");
  const rest = await page(s, a, `?after=${encodeURIComponent(cursor)}`);
  t.same(rest.body.events.map((r: any) => r.event.task_id), ['t1', 't1', 't2', 't2'], 'the cursor resumes after row 2');
});

t.test('recovery of a recipe run: the last events are reported again as new rows of generation 2', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id, preview } = await launchRun(s, legCounting({ evaluation_tasks: 8 }));
  let before = await drainChecked(s, id);
  for (let i = 0; i < 300 && before.rows.length < 6; i++) {
    await advance(s, 2);
    before = await drainChecked(s, id);
  }
  const recovered = await s.call('POST', `/_mock/workloads/${id}/recover`, { body: { replay_last: 3 } });
  t.equal(recovered.status, 200);
  await advance(s, secondsToFinish(preview));
  const { rows } = await drainChecked(s, id);
  const last3 = rows.filter((r) => r.generation === 1).slice(-3);
  const replayed = rows.filter((r) => r.generation === 2).slice(0, 3);
  t.same(replayed.map((r) => r.event), last3.map((r) => r.event), 'same events, same event_ids');
  t.ok(replayed.every((r, i) => BigInt(r.id) > BigInt(last3[i].id)), 'new row ids');
  const sum = await summary(s, id);
  conforms(t, 'GET', '/v1/workloads/{id}/rl-summary', sum);
  const attempts = new Set(rows.filter((r) => r.event.phase === 'evaluation').map((r) => `${r.event.task_id} ${r.event.attempt}`)).size;
  t.match(sum.body.phases.evaluation, { attempts, scored: 8, in_progress: 0 }, 'each attempt counted once');
  const logged = s.store.runtime.logs(id, 0, 100_000).filter((l) => l.generation === 2 && l.line.startsWith('nodus.rl_event '));
  t.ok(replayed.every((r) => logged.some((l) => JSON.parse(l.line.slice(15)).event_id === r.event.event_id)), 'replays are logged in generation 2');
});

t.test('recovery of a custom run: ingested events replay, and later reports of an attempt count once', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  await advance(s, 200);
  t.equal((await s.call('GET', `/v1/workloads/${id}`)).body.status, 'running');
  const [aStart, aDone] = attempt('evaluation', 'a', 1, 'failed');
  const [bStart, bDone] = attempt('evaluation', 'b', 1, 'passed');
  await ingest(s, id, [aStart, aDone, bStart]);
  await s.call('POST', `/_mock/workloads/${id}/recover`, { body: { replay_last: 1 } });
  await advance(s, 120);
  t.equal((await s.call('GET', `/v1/workloads/${id}`)).body.status, 'running');

  // Attempt a is reported again in generation 2, passing this time; b finishes there.
  const again = await ingest(s, id, [aStart, { ...aDone, outcome: 'passed', reward: 1 }, bDone]);
  t.match(again.body, { generation: 2, accepted: 3, rejected: [] }, 'same event_ids, new rows in the new generation');
  t.match((await ingest(s, id, [aDone], { generation: 1 })).body, { accepted: 0, duplicates: 1 }, 'a late repeat in generation 1 is a duplicate');
  const { rows } = await drainChecked(s, id);
  t.same(rows.map((r) => [r.generation, r.event.event_id]), [
    [1, aStart.event_id], [1, aDone.event_id], [1, bStart.event_id],
    [2, bStart.event_id], [2, aStart.event_id], [2, aDone.event_id], [2, bDone.event_id],
  ]);
  const sum = (await summary(s, id)).body;
  t.match(sum.phases.evaluation, { attempts: 2, passed: 2, failed: 0, in_progress: 0 }, 'the latest report of each attempt');
});

t.test('bounds: events past the count, byte and 16 KiB limits are dropped and counted', async (t) => {
  const s = await startInProcess(t, { clock: 'manual', maxEventsPerWorkload: 5, maxEventBytesPerWorkload: 40_000 });
  const count = await submitCustom(s);
  const res = await ingest(s, count, phaseEvents('evaluation', 4, 2));
  t.match(res.body, { accepted: 5, dropped: 3, rejected: [], dropped_events: 3, truncated: true });
  const { rows, last } = await drainChecked(s, count);
  t.equal(rows.length, 5);
  t.match(last, { dropped_events: 3, truncated: true });

  const bytes = await submitCustom(s);
  const bulky = (i: number) => ({ ...attempt('evaluation', `t${i}`, 1, 'passed')[1], input: 'x'.repeat(4096), output: 'y'.repeat(4096) });
  const byBytes = await ingest(s, bytes, [0, 1, 2, 3, 4].map(bulky));
  t.match(byBytes.body, { accepted: 4, dropped: 1, truncated: true }, '40,000 bytes hold four ~8.4 KB events');
  t.ok(s.store.rlEvents.counters(bytes).bytes <= 40_000);

  const cap = await submitCustom(s);
  // Valid field by field (4,096 bytes each), but every newline encodes as two bytes: over 16 KiB.
  const huge = { ...bulky(0), input: '\n'.repeat(4096), output: '\n'.repeat(4096), verifier: '\n'.repeat(4096) };
  t.ok(JSON.stringify(huge).length > 16 * 1024);
  const capped = await ingest(s, cap, [huge, attempt('evaluation', 't1', 1, 'passed')[1]]);
  t.match(capped.body, { accepted: 1, dropped: 1, rejected: [], dropped_events: 1, truncated: true }, 'the 16 KiB cap drops, it does not reject');
});

t.test('drop-events counts lost events; the summary then refuses the comparison', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  await ingest(s, id, [...phaseEvents('baseline', 4, 1), ...phaseEvents('evaluation', 4, 3)]);
  t.equal((await summary(s, id)).body.comparison.reason, 'comparable');
  const dropped = await s.call('POST', `/_mock/workloads/${id}/drop-events`, { body: { count: 2 } });
  t.match(dropped.body, { dropped_events: 2, truncated: true });
  const { last } = await drainChecked(s, id);
  t.match(last, { dropped_events: 2, truncated: true });
  const sum = await summary(s, id);
  conforms(t, 'GET', '/v1/workloads/{id}/rl-summary', sum);
  t.match(sum.body, { dropped_events: 2, truncated: true, comparison: { reason: 'incomplete_events', comparable: false, measurable: false } });
});
