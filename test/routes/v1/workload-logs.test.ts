import { createHash } from 'node:crypto';
import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { advance, drainEvents, launchRun, legCounting, secondsToFinish } from '../../helpers/rl.js';
import { canonicalJson } from '../../../server/domain/json-text.js';
import { openStore } from '../../../store/index.js';
import { startInProcess, tempDbPath, type TestServer } from '../../helpers/server.js';

const LOGS = '/v1/workloads/{id}/logs';
const LIVE = '/v1/workloads/{id}/logs/live';
const PREFIX = 'nodus.rl_event ';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Every live chunk from the beginning, paged as the SDK's wait() does (after="" first). */
async function drainLive(s: TestServer, id: string) {
  const chunks: any[] = [];
  let after = '';
  for (;;) {
    const page = await s.call('GET', `/v1/workloads/${id}/logs/live?after=${encodeURIComponent(after)}`);
    if (page.status !== 200) throw new Error(`live logs: ${page.status} ${page.text}`);
    if (page.body.chunks.length === 0) return { chunks, last: page.body, cursor: after };
    chunks.push(...page.body.chunks);
    after = page.body.next_cursor;
  }
}

/** The task events a log's `nodus.rl_event` lines report. */
const eventsInLog = (text: string) => text.split('\n').filter((l) => l.startsWith(PREFIX)).map((l) => JSON.parse(l.slice(PREFIX.length)));

t.test('logs: text of the latest attempt with its digest and headers; 404 until a line is written', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id, preview } = await launchRun(s, legCounting({ evaluation_tasks: 4 }));
  const early = await s.call('GET', `/v1/workloads/${id}/logs`);
  t.equal(early.status, 404, 'nothing written before the stage starts');
  t.equal(early.body.error, 'not_found');
  conforms(t, 'GET', LOGS, early);

  await advance(s, secondsToFinish(preview));
  const res = await s.call('GET', `/v1/workloads/${id}/logs`);
  t.equal(res.status, 200);
  conforms(t, 'GET', LOGS, res);
  t.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.equal(res.headers.get('x-nodus-sha256'), sha256(res.text), 'X-Nodus-SHA256 is the body\'s digest');
  t.equal(res.headers.get('x-nodus-log-source'), 'live-snapshot');
  t.equal(res.headers.get('x-nodus-log-truncated'), 'false');
  t.equal(res.headers.get('x-nodus-stage-id'), 'main');
  t.equal(res.headers.get('x-nodus-generation'), '1');
  const lines = res.text.split('\n');
  t.match(lines[0], /runtime: stage main started$/);
  t.match(lines[lines.length - 1], /runtime: stage main completed$/);
  t.notOk(res.text.endsWith('\n'), 'lines joined with a line break');

  t.equal((await s.call('GET', `/v1/workloads/${id}/logs?stage=main&generation=1`)).text, res.text, 'the same attempt named');
  for (const [query, status] of [['generation=2', 404], ['stage=other', 404], ['generation=0', 400], ['generation=x', 400], ['generation=1.5', 400], ['member_id=m1', 404]] as const) {
    const other = await s.call('GET', `/v1/workloads/${id}/logs?${query}`);
    t.equal(other.status, status, query);
    conforms(t, 'GET', LOGS, other);
  }
  t.equal((await s.call('GET', '/v1/workloads/wl_00000000000000000000/logs')).status, 404);
});

t.test('logs and RL events agree, generation by generation, through a recovery', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id, preview } = await launchRun(s, legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 4, seed: 3 }));
  for (let i = 0; i < 60 && (await s.call('GET', `/v1/workloads/${id}`)).body.status !== 'running'; i++) await advance(s, 10);
  await advance(s, 60);
  const recovered = await s.call('POST', `/_mock/workloads/${id}/recover`, { body: { replay_last: 3 } });
  t.equal(recovered.status, 200);
  await advance(s, secondsToFinish(preview));

  const { rows } = await drainEvents(s, id);
  t.same([...new Set(rows.map((r) => r.generation))], [1, 2]);
  const latest = await s.call('GET', `/v1/workloads/${id}/logs`);
  t.equal(latest.headers.get('x-nodus-generation'), '2', 'the latest attempt by default');
  // Key order means nothing in JSON: a log line has the emitter's, a page the stored event's.
  const key = (e: any) => canonicalJson(e);
  // Recovery reported the last 3 events of generation 1 again in generation 2: the runner
  // re-reports them, the command does not print them again.
  const replayed = new Set(rows.filter((r) => r.generation === 1).slice(-3).map((r) => key(r.event)));
  for (const generation of [1, 2]) {
    const log = await s.call('GET', `/v1/workloads/${id}/logs?generation=${generation}`);
    t.equal(log.status, 200);
    t.equal(log.headers.get('x-nodus-generation'), String(generation));
    const logged = new Set(eventsInLog(log.text).map(key));
    const stored = new Set(rows.filter((r) => r.generation === generation).map((r) => key(r.event)));
    t.ok(logged.size > 0, `generation ${generation} logs task events`);
    t.ok([...logged].every((e) => stored.has(e)), `every logged event of generation ${generation} is a row of GET rl-events`);
    const unlogged = [...stored].filter((e) => !logged.has(e));
    t.ok(unlogged.every((e) => generation === 2 && replayed.has(e)), `every row of generation ${generation} is logged, replays aside`);
  }
});

t.test('live logs: integer chunk ids, an opaque cursor, the same text as the log', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id, preview } = await launchRun(s, legCounting({ mode: 'train', evaluation_tasks: 8, training_steps: 40 }));
  const empty = await s.call('GET', `/v1/workloads/${id}/logs/live?after=`);
  t.equal(empty.status, 200, 'after="" is accepted');
  conforms(t, 'GET', LIVE, empty);
  t.same(empty.body.chunks, []);
  t.type(empty.body.next_cursor, 'string');

  await advance(s, secondsToFinish(preview));
  const first = await s.call('GET', `/v1/workloads/${id}/logs/live?after=`);
  conforms(t, 'GET', LIVE, first);
  t.equal(first.body.chunks.length, 500, 'a page holds at most 500 lines');
  const { chunks, cursor } = await drainLive(s, id);
  t.ok(chunks.length > 500, `several pages (${chunks.length} lines)`);
  t.ok(chunks.every((c) => Number.isInteger(c.id) && c.stage_id === 'main' && c.generation === 1));
  t.same(chunks.map((c) => c.id), [...chunks.map((c) => c.id)].sort((a, b) => a - b), 'ascending ids');
  const log = (await s.call('GET', `/v1/workloads/${id}/logs`)).text;
  t.equal(chunks.map((c) => c.text).join(''), `${log}\n`, 'the chunks add up to the log');
  const caughtUp = await s.call('GET', `/v1/workloads/${id}/logs/live?after=${encodeURIComponent(cursor)}`);
  t.same(caughtUp.body, { chunks: [], next_cursor: cursor, truncated: false }, 'caught up: the cursor stays put');

  const rlCursor = (await s.call('GET', `/v1/workloads/${id}/rl-events?limit=1`)).body.next_cursor;
  for (const bad of ['garbage', rlCursor, 'x'.repeat(65)]) {
    const res = await s.call('GET', `/v1/workloads/${id}/logs/live?after=${encodeURIComponent(bad)}`);
    t.equal(res.status, 400, `refused cursor ${bad.slice(0, 12)}`);
    t.equal(res.body.error, 'invalid_cursor');
  }
  const other = await launchRun(s, legCounting());
  t.equal((await s.call('GET', `/v1/workloads/${other.id}/logs/live?after=${encodeURIComponent(cursor)}`)).status, 400, 'a cursor is bound to its workload');
  const unknown = await s.call('GET', '/v1/workloads/wl_00000000000000000000/logs/live?after=');
  t.equal(unknown.status, 404);
  conforms(t, 'GET', LIVE, unknown);
});

t.test('a log over its bound keeps whole lines up to it and says it was truncated', async (t) => {
  const s = await startInProcess(t, { clock: 'manual', maxLogBytesPerAttempt: 2000 });
  const { id, preview } = await launchRun(s, legCounting({ evaluation_tasks: 8 }));
  await advance(s, secondsToFinish(preview));
  const res = await s.call('GET', `/v1/workloads/${id}/logs`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-nodus-log-truncated'), 'true');
  t.ok(Buffer.byteLength(res.text) + 1 <= 2000, `within the bound (${Buffer.byteLength(res.text)} bytes)`);
  t.ok(Buffer.byteLength(res.text) > 1000, 'and filled up to it');
  t.equal(res.headers.get('x-nodus-sha256'), sha256(res.text));
  const { chunks, last } = await drainLive(s, id);
  t.equal(last.truncated, true);
  t.equal(chunks.map((c) => c.text).join(''), `${res.text}\n`);
  t.ok((await drainEvents(s, id)).rows.length > eventsInLog(res.text).length, 'the evidence is whole; only the log was cut');
});

t.test('a database written before log retention counts its stored lines as retained', async (t) => {
  const path = tempDbPath(t);
  const store = openStore(path);
  store.db.prepare("INSERT INTO tenants (id, created_at_ms, clock_anchor_wall_ms, clock_anchor_virtual_ms) VALUES ('tn_old', 0, 0, 0)").run();
  store.workloads.insert({
    id: 'wl_old', tenantId: 'tn_old', kind: 'custom', name: null, payload: '{}', spec: '{}', estimatedCostUsd: 0, revision: 1,
    createdAtMs: 0, materialisedToMs: 0, status: 'running', updatedAtMs: 0, spendUsd: 0, generation: 2, settled: 0,
  });
  const line = store.db.prepare("INSERT INTO workload_logs (seq, workload_id, stage_id, generation, at_ms, line) VALUES (?, 'wl_old', 'main', ?, 0, ?)");
  for (const [seq, generation, text] of [[1, 1, 'one'], [2, 1, 'två'], [3, 2, 'three']] as const) line.run(seq, generation, text);
  // Back to schema version 3, as a server before this change left it.
  store.db.exec("DROP TABLE workload_log_attempts; DROP INDEX workload_logs_attempt; DELETE FROM schema_migrations WHERE version = 5");
  store.close();

  const reopened = openStore(path);
  t.teardown(() => reopened.close());
  t.same(reopened.runtime.logAttempt('wl_old'), { stageId: 'main', generation: 2, bytes: 6, truncated: false });
  t.same(reopened.runtime.logAttempt('wl_old', 'main', 1), { stageId: 'main', generation: 1, bytes: (3 + 1) + (4 + 1), truncated: false }, 'UTF-8 bytes plus a line break per line');
});
