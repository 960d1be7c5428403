import { isDeepStrictEqual } from 'node:util';
import t from '../helpers/tap.js';
import { RLEventPage, RLEventRow } from '../../openapi/rl-evidence.js';
import { ingest, submitCustom } from '../helpers/evidence.js';
import { advance, launchRun, legCounting, secondsToFinish } from '../helpers/rl.js';
import { startInProcess, type CallResult, type TestServer } from '../helpers/server.js';

// GET /v1/workloads/{id}/rl-events sends its page as text built from the stored events, past the
// serializer that would otherwise hold it to RLEventPage (server/http/views/evidence.ts). This
// holds the text itself to that schema, so a change to what is stored, or to how the page is
// spelled, that the schema would not produce fails here.

/** What is wrong with one page as sent: its media type, then RLEventPage, then the serializer's key order. */
function pageProblems(res: CallResult): string[] {
  if (res.status !== 200) return [`status ${res.status}: ${res.text}`];
  const problems: string[] = [];
  if (res.headers.get('content-type') !== 'application/json; charset=utf-8') problems.push(`content-type ${res.headers.get('content-type')}`);
  const sent = JSON.parse(res.text);
  const parsed = RLEventPage.safeParse(sent);
  if (!parsed.success) return [...problems, ...parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)];
  // Nothing the schema would drop or rewrite (a transform, a default) may be in the text.
  if (!isDeepStrictEqual(parsed.data, sent)) problems.push('the page differs from what RLEventPage makes of it');
  const keys = (o: object) => Object.keys(o).join(',');
  if (keys(sent) !== keys(RLEventPage.shape)) problems.push(`page keys ${keys(sent)}`);
  for (const row of sent.events) if (keys(row) !== keys(RLEventRow.shape)) problems.push(`row ${row.id} keys ${keys(row)}`);
  return problems;
}

/** Every page of the workload, `limit` rows at a time, then the page after the last cursor; each checked as sent. */
async function walk(s: TestServer, id: string, limit: number) {
  const rows: RLEventRow[] = [];
  const problems: string[] = [];
  const get = async (after: string) => {
    const res = await s.call('GET', `/v1/workloads/${id}/rl-events?limit=${limit}${after && `&after=${encodeURIComponent(after)}`}`);
    problems.push(...pageProblems(res).map((p) => `after ${after || 'the start'}: ${p}`));
    return JSON.parse(res.text) as RLEventPage;
  };
  let page = await get('');
  let pages = 1;
  for (rows.push(...page.events); page.has_more; rows.push(...page.events), pages++) page = await get(page.next_cursor);
  // Past the end: no rows, the cursor handed back.
  const past = await get(page.next_cursor);
  if (past.events.length !== 0 || past.next_cursor !== page.next_cursor) problems.push('a page past the end holds rows or moves the cursor');
  return { rows, pages, problems };
}

t.test('the route declares RLEventPage for its 200', async (t) => {
  const s = await startInProcess(t);
  const doc = (await s.call('GET', '/openapi.json', { key: null })).body;
  t.same(doc.paths['/v1/workloads/{id}/rl-events'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/RLEventPage' });
});

t.test('pages of a simulated run with traces are RLEventPages as sent', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id, preview } = await launchRun(s, legCounting({ include_traces: true }));
  await advance(s, secondsToFinish(preview));
  const { rows, pages, problems } = await walk(s, id, 7);
  t.same(problems, []);
  t.ok(pages > 1, 'more than one page');
  t.ok(rows.some((r) => r.event.input !== undefined && r.event.verifier !== undefined), 'traces included');
});

t.test('pages of ingested events with awkward text, drops and truncation are RLEventPages as sent', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  const awkward = ['quote " and backslash \\', 'line\nbreak\ttab\r', 'naïve – ünïcødé 🚀', '\u2028\u2029 separators', '</script><!--', ''];
  const events = awkward.flatMap((text, i) => [
    { event_id: `s${i}`, phase: 'baseline', task_id: `task "${i}"`, attempt: 1, kind: 'task_started', message: text },
    { event_id: `c${i}`, phase: 'baseline', task_id: `task "${i}"`, attempt: 1, kind: 'task_completed', outcome: i % 2 ? 'failed' : 'passed', reward: -0.5 * i, duration_ms: 1.25 * i, output: text, input: text, verifier: text },
  ]);
  const ingested = await ingest(s, id, events);
  t.equal(ingested.body.accepted, events.length);
  const { rows, problems } = await walk(s, id, 5);
  t.same(problems, []);
  t.same(rows.map((r) => r.event.event_id), events.map((e) => e.event_id));
  t.same(rows.map((r) => r.event.message ?? r.event.output), awkward.flatMap((a) => [a, a]), 'the text comes back as sent');

  t.equal((await s.call('POST', `/_mock/workloads/${id}/drop-events`, { body: { count: 3 } })).status, 200);
  const res = await s.call('GET', `/v1/workloads/${id}/rl-events?limit=200`);
  t.same(pageProblems(res), []);
  t.match(JSON.parse(res.text), { dropped_events: 3, truncated: true, has_more: false });
});

t.test('a stored event the schema would refuse fails the check: it is not vacuous', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  await ingest(s, id, [{ event_id: 'e1', phase: 'baseline', task_id: 't', attempt: 1, kind: 'task_started' }]);
  t.same(pageProblems(await s.call('GET', `/v1/workloads/${id}/rl-events`)), []);
  // Stored text that drifted from RLEvent, as a careless migration or writer could leave it.
  s.store.db.prepare('UPDATE rl_events SET event = ? WHERE workload_id = ?').run('{"event_id":"e1","kind":"task_started","extra":1}', id);
  t.not(pageProblems(await s.call('GET', `/v1/workloads/${id}/rl-events`)).length, 0);
});
