import fc from 'fast-check';
import type { Test } from 'tap';
import t from '../../helpers/tap.js';
import { isTerminal } from '../../../server/simulator/types.js';
import { connect, liveWandb } from '../../helpers/connections.js';
import { submitCustom } from '../../helpers/evidence.js';
import { advance, launchRun, legCounting } from '../../helpers/rl.js';
import { freshKey, startInProcess, type CallResult, type Teardown, type TestServer } from '../../helpers/server.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

/*
 * PUT /_mock/snapshot takes only what the API could have written (server/domain/snapshots/checks.ts):
 * a real snapshot, mutated one field at a time in every column of every table, is either refused
 * with 400 invalid_snapshot and the tenant left as it was, or restored into a tenant every read of
 * which answers without a 5xx; another tenant's reads never change.
 */

// The journal never evicts here: a refused restore adds its own row and must not push another out.
const SETTINGS = { clock: 'manual', maxEventsPerWorkload: 20, journalSize: 1_000_000 } as const;
type Doc = { tenant: { clock: Record<string, unknown>; cursor_key: string | null; tables: Record<string, Record<string, unknown>[]> } } & Record<string, unknown>;

const ok = async (s: TestServer, method: string, path: string, body?: unknown, options: { headers?: Record<string, string>; key?: string } = {}) => {
  const res = await s.call(method, path, { body, ...options });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};

/** A tenant with a row in every table: launched, recovered and custom runs, an asset, deliveries, faults, workload rules, secrets, a connection. */
async function everything(t: Teardown, s: TestServer): Promise<Doc> {
  const receiver = await startReceiver(t);
  await ok(s, 'PUT', '/v1/webhooks', { url: receiver.url, secret: 'whsec_' + Buffer.from('snapshot-checks-secret-0123456789').toString('base64') });
  await ok(s, 'PUT', '/_mock/levers', { review_expiry: true, unrecoverable_error_rate: 0.25 });
  await ok(s, 'PUT', '/_mock/budget', { monthly_spend_cap_usd: 500 });
  await ok(s, 'PATCH', '/_mock/recipes/swe-smith-repair', { available: false, unavailable_reason: 'drained' });
  await ok(s, 'POST', '/_mock/faults', { method: 'GET', path: '/v1/me', times: 2, action: { type: 'error', status: 503, error: 'unavailable' } });
  await ok(s, 'POST', '/_mock/faults', { path: '/v1/workloads/{id}/*', after: 50, action: { type: 'delay', ms: 1 } });
  await s.call('GET', '/v1/me');
  await connect(s, 'wb', liveWandb);
  await connect(s, 'warehouse', { kind: 'neon', region: 'eu-central-1', branch: 'main' });
  // One rule that applies (its drop recorded as the rule's), one still waiting when the snapshot is taken.
  await ok(s, 'POST', '/_mock/workload-rules', { match: { mode: 'evaluate', nth: 1 }, at: { events: 4 }, action: [{ type: 'drop_events', count: 1 }] });
  await ok(s, 'POST', '/_mock/workload-rules', { match: { mode: 'train' }, at: { reads: 1000 }, action: { type: 'fail' } });

  const done = await launchRun(s, legCounting({ evaluation_tasks: 12, seed: 3 }), 'run-done');
  await advance(s, 120);
  await ok(s, 'POST', `/_mock/workloads/${done.id}/recover`, { replay_last: 3 });
  await advance(s, 4000);
  const frozen = await launchRun(s, legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 6, seed: 7 }), 'run-frozen');
  await advance(s, 150);
  await ok(s, 'POST', `/v1/workloads/${frozen.id}/freeze`, {}, { headers: { 'idempotency-key': 'freeze-1' } });
  const upload = await s.call('POST', '/v1/assets/upload?name=train.py', { raw: 'print("train")\n', headers: { 'content-type': 'application/octet-stream' } });
  await ok(s, 'POST', '/v1/workloads', {
    requirements: {}, continuity: { mode: 'checkpointed', resume_on_interruption: true }, connections: ['wb'],
    source: { image: 'python:3.11-slim', command: ['python', 'train.py'], asset_id: upload.body.id },
  }, { headers: { 'idempotency-key': 'custom-1' } });
  await advance(s, 30);
  await ok(s, 'POST', `/_mock/workloads/${done.id}/drop-events`, { count: 2 });
  await ok(s, 'POST', '/_mock/webhooks/flush');
  const doc = (await s.call('GET', '/_mock/snapshot')).body as Doc;
  // Only a --scenario file writes this row; the document carries one as such a server would.
  doc.tenant.tables.scenario_applied = [{ entry_sha256: 'a'.repeat(64), applied_at_ms: doc.tenant.clock.now_ms }];
  return doc;
}

const WORKLOAD_ROUTES = ['', '/events', '/events?after=2', '/outputs', '/rl-events?limit=7', '/rl-grading-results', '/rl-grading-results?revision=1',
  '/rl-summary', '/logs', '/logs/live', '/freeze', '/artifacts', '/ledger', '/routing'];

/** Every read route of a tenant, its ids taken from the tenant's own lists; answers path → response. */
async function reads(s: TestServer, key: string): Promise<Map<string, CallResult>> {
  const out = new Map<string, CallResult>();
  const read = async (path: string) => {
    const res = await s.call('GET', path, { key });
    out.set(path, res);
    return res;
  };
  const fixed = ['/v1/me', '/v1/workloads', '/v1/workloads?limit=2&offset=1', '/v1/assets', '/v1/webhooks', '/v1/secrets', '/v1/connections',
    '/v1/compute', '/_mock/clock', '/_mock/faults', '/_mock/workload-rules', '/_mock/webhooks/deliveries', '/_mock/snapshot'];
  await Promise.all(fixed.map(read));
  const list = <T>(path: string, field: string): T[] => {
    const body = out.get(path)?.body;
    return Array.isArray(body?.[field]) ? body[field] : [];
  };
  const ids = (path: string, field: string) => list<{ id?: string; name?: string }>(path, field).map((x) => x.id).filter((id): id is string => typeof id === 'string');
  const paths = [
    ...ids('/v1/workloads', 'workloads').flatMap((id) => WORKLOAD_ROUTES.map((r) => `/v1/workloads/${encodeURIComponent(id)}${r}`)),
    ...ids('/v1/assets', 'assets').flatMap((id) => [`/v1/assets/${id}`, `/_mock/assets/${id}/content`, `/_mock/assets/${id}/files`]),
    ...ids('/v1/connections', 'connections').map((id) => `/v1/connections/${id}`),
    ...ids('/v1/compute', 'groups').map((id) => `/v1/compute/groups/${id}`),
  ];
  await Promise.all(paths.map(read));
  // Pages after the first, by the cursor each answered.
  const next = [...out].flatMap(([path, res]) => (typeof res.body?.next_cursor === 'string' && /rl-events|logs\/live/.test(path)
    ? [`${path.replace(/[?&]after=[^&]*/, '')}${path.includes('?') ? '&' : '?'}after=${encodeURIComponent(res.body.next_cursor)}`] : []));
  const outputs = [...out].flatMap(([path, res]) => (path.endsWith('/outputs') && Array.isArray(res.body?.outputs)
    ? res.body.outputs.map((o: { name: string }) => `${path}/${encodeURIComponent(o.name)}`) : []));
  await Promise.all([...next, ...outputs].map(read));
  await read('/_mock/requests?limit=1000');
  return out;
}

/** The 5xx answers among the reads, but those a fault rule of the tenant injected, as it was told to. */
function fiveHundreds(answers: Map<string, CallResult>): string[] {
  const rules = (answers.get('/_mock/faults')?.body?.faults ?? []) as { action: { type: string; status?: number; error?: string } }[];
  const injected = (res: CallResult) => rules.some((r) => r.action.type === 'error' && r.action.status === res.status && r.action.error === res.body?.error);
  return [...answers].filter(([, res]) => res.status >= 500 && !injected(res)).map(([path, res]) => `${path}: ${res.status} ${res.text.slice(0, 200)}`);
}

/**
 * What another tenant reads, as text: unchanged by anything this tenant restores. Its journal and
 * the snapshot's date are its own reads'. By path: the reads run together and answer in any order.
 */
async function textOf(s: TestServer, key: string): Promise<string> {
  const answers = await reads(s, key);
  answers.delete('/_mock/requests?limit=1000');
  const snapshot = answers.get('/_mock/snapshot')!.body as Doc;
  answers.set('/_mock/snapshot', { ...answers.get('/_mock/snapshot')!, text: JSON.stringify({ ...snapshot, created_at: null, tenant: { ...snapshot.tenant, tables: { ...snapshot.tenant.tables, request_journal: [] } } }) });
  // By path: the reads run together, and answers arrive in no set order.
  return JSON.stringify([...answers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([path, res]) => [path, res.status, res.text]));
}

/** The document but its date, and but the journal's rows of restores, which are journaled whether they restore or are refused. */
const stable = (doc: Doc) => JSON.stringify({
  ...doc, created_at: null,
  tenant: { ...doc.tenant, tables: { ...doc.tenant.tables, request_journal: doc.tenant.tables.request_journal.filter((r) => r.path !== '/_mock/snapshot') } },
});

/** A copy of the document with one edit. */
function edited(base: Doc, edit: (d: Doc) => void): Doc {
  const doc = structuredClone(base);
  edit(doc);
  return doc;
}

/** Each document is refused with 400 invalid_snapshot and its message, leaving the tenant's document `before`. */
async function refusedEach(t: Test, s: TestServer, cases: [string, Doc, RegExp][], before: string) {
  for (const [what, doc, message] of cases) {
    const res = await s.call('PUT', '/_mock/snapshot', { body: doc });
    t.equal(res.status, 400, `${what}: ${res.text.slice(0, 300)}`);
    t.equal(res.body.error, 'invalid_snapshot', what);
    t.match(res.body.message, message, what);
    t.equal(stable((await s.call('GET', '/_mock/snapshot')).body), before, `${what}: the tenant is as it was`);
  }
}

/** One change to one cell: the value put there, and what it is, for the failure message. */
interface Mutation {
  what: string;
  value: unknown;
}

const RANGE_END = Date.UTC(5000, 0, 1);
const numbers = (n: number): Mutation[] => [-1, 0, 1, 1.5, 2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, 1e308, -1e308, RANGE_END + 1, Date.UTC(9999, 11, 31), n - 1, n + 1, n * 2, n - 86_400_000]
  .map((value) => ({ what: `number ${value}`, value }));
const strings: Mutation[] = ['', 'x', 'bogus', 'not json{', '{}', '[]', 'null', '1', '"x"', ' padded ', '\u0000', 'x'.repeat(3000), '/v1/*', 'wl_AAAAAAAAAAAAAAAAAAAA']
  .map((value) => ({ what: `text ${JSON.stringify(value).slice(0, 30)}`, value }));
const wrongTypes: Mutation[] = [null, true, 'text', 7, [], {}].map((value) => ({ what: `type ${JSON.stringify(value)}`, value }));

/** The leaves and objects of a JSON value, by path, up to a depth. */
function pathsOf(value: unknown, depth = 4, at: (string | number)[] = []): (string | number)[][] {
  if (depth === 0 || value === null || typeof value !== 'object') return [at];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [at, ...keys.flatMap((k) => pathsOf((value as Record<string | number, unknown>)[k], depth - 1, [...at, k]))];
}

function setAt(value: unknown, path: (string | number)[], change: (parent: Record<string | number, unknown>, key: string | number) => void): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  change(parent, path[path.length - 1]);
  return copy;
}

/** A JSON text column's structure broken at one place: a key dropped or added, a value of another type or out of range. */
function jsonMutations(text: string): Mutation[] {
  const value = JSON.parse(text) as unknown;
  return pathsOf(value).filter((p) => p.length > 0).flatMap((path) => [
    { what: `json ${path.join('.')} removed`, value: JSON.stringify(setAt(value, path, (o, k) => { if (Array.isArray(o)) o.splice(Number(k), 1); else delete o[k]; })) },
    ...[null, -1, 1e308, 'bogus', {}, [], true, 2 ** 53 - 1].map((v) => ({ what: `json ${path.join('.')} = ${JSON.stringify(v)}`, value: JSON.stringify(setAt(value, path, (o, k) => { o[k] = v; })) })),
  ]).concat(
    { what: 'json with an unknown key', value: value !== null && typeof value === 'object' && !Array.isArray(value) ? JSON.stringify({ ...value, unknown_key: 1 }) : '[1]' },
    { what: 'json nested too deep', value: '['.repeat(100) + ']'.repeat(100) },
  );
}

function mutationsOf(row: Record<string, unknown>, column: string, workloads: Map<string, number>): Mutation[] {
  const value = row[column];
  const list = [...wrongTypes];
  if (typeof value === 'number') list.push(...numbers(value));
  if (typeof value === 'string') {
    list.push(...strings);
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch { /* plain text */ }
    if (parsed !== null && typeof parsed === 'object') list.push(...jsonMutations(value));
  }
  const created = typeof row.workload_id === 'string' ? workloads.get(row.workload_id) : undefined;
  if (column.endsWith('_ms') && created !== undefined) list.push({ what: 'before its workload was created', value: created - 1 });
  return list;
}

t.test('a snapshot changed in any one field is refused, or restores a tenant whose every read answers', async (t) => {
  const s = await startInProcess(t, SETTINGS);
  const base = await everything(t, s);
  const other = freshKey();
  await launchRun(s, legCounting({ seed: 9 }), 'other-run', other);
  await advance(s, 200, other);
  const othersBefore = await textOf(s, other);

  const first = await s.call('PUT', '/_mock/snapshot', { body: base });
  t.equal(first.status, 200, `the unchanged document restores: ${first.text.slice(0, 300)}`);
  for (const [table, rows] of Object.entries(base.tenant.tables)) t.ok(rows.length > 0, `${table} has a row to change`);
  t.same(fiveHundreds(await reads(s, s.key)), [], 'the unchanged tenant answers every read');
  let last = stable((await s.call('GET', '/_mock/snapshot')).body);

  const workloads = new Map(base.tenant.tables.workloads.map((w) => [w.id as string, w.created_at_ms as number]));
  const cells: [string, string][] = [
    ...Object.keys(base.tenant.clock).map((c): [string, string] => ['clock', c]),
    ['tenant', 'cursor_key'],
    ...Object.entries(base.tenant.tables).flatMap(([table, rows]) => Object.keys(rows[0]).map((c): [string, string] => [table, c])),
  ];
  const seed = Number(process.env.FC_SEED ?? Date.now() % 1_000_000);
  t.comment(`fast-check seed ${seed} (FC_SEED to repeat)`);
  let refused = 0;
  let restored = 0;
  for (const [i, [table, column]] of cells.entries()) {
    const rows = table === 'clock' ? [base.tenant.clock] : table === 'tenant' ? [base.tenant as unknown as Record<string, unknown>] : base.tenant.tables[table];
    const cell = fc.nat({ max: rows.length - 1 }).chain((index) => fc.constantFrom(...mutationsOf(rows[index], column, workloads)).map((m) => ({ index, ...m })));
    await fc.assert(fc.asyncProperty(cell, async ({ index, what, value }) => {
      const doc = structuredClone(base);
      const target = table === 'clock' ? doc.tenant.clock : table === 'tenant' ? (doc.tenant as unknown as Record<string, unknown>) : doc.tenant.tables[table][index];
      target[column] = value;
      const label = `${table}.${index}.${column}: ${what}`;
      const res = await s.call('PUT', '/_mock/snapshot', { body: doc });
      if (res.status === 400) {
        refused++;
        if (res.body.error !== 'invalid_snapshot') throw new Error(`${label}: refused as ${res.text}`);
        if (stable((await s.call('GET', '/_mock/snapshot')).body) !== last) throw new Error(`${label}: refused (${res.body.message}), but the tenant changed`);
        return;
      }
      if (res.status !== 200) throw new Error(`${label}: ${res.status} ${res.text.slice(0, 300)}`);
      restored++;
      const broken = fiveHundreds(await reads(s, s.key));
      if (broken.length) throw new Error(`${label}: restored, then ${broken.join('; ')}`);
      // A restored clock can make deliveries due; the worker's timer would send them between this
      // document and the next comparison, so what is due is sent now.
      await ok(s, 'POST', '/_mock/webhooks/flush');
      last = stable((await s.call('GET', '/_mock/snapshot')).body);
    }), { numRuns: 2, seed: seed + i, endOnFailure: true });
  }
  t.comment(`${cells.length} columns, ${refused} documents refused, ${restored} restored`);
  t.ok(refused > 0 && restored > 0);
  t.equal(await textOf(s, other), othersBefore, 'another tenant reads exactly what it read before');
});

t.test('the attacks of issue 33 are refused with the path of the field, and change nothing', async (t) => {
  const s = await startInProcess(t, SETTINGS);
  const run = await launchRun(s, legCounting({ seed: 5 }));
  await advance(s, 600);
  await ok(s, 'POST', '/_mock/faults', { path: '/v1/me', action: { type: 'error', status: 503, error: 'unavailable' } });
  const upload = await s.call('POST', '/v1/assets/upload?name=data.txt', { raw: 'the upload', headers: { 'content-type': 'application/octet-stream' } });
  t.equal(upload.status, 201);
  const base = (await s.call('GET', '/_mock/snapshot')).body as Doc;
  const other = freshKey();
  await launchRun(s, legCounting({ seed: 6 }), 'other-run', other);
  const othersBefore = await textOf(s, other);
  const before = stable(base);

  const change = (edit: (d: Doc) => void) => edited(base, edit);
  const fault = (action: unknown) => change((d) => { d.tenant.tables.faults[0].action = JSON.stringify(action); });
  const attacks: [string, Doc, RegExp][] = [
    ['an unknown fault action type', fault({ type: 'hang' }), /^body\.tenant\.tables\.faults\.0\.action: /],
    ['a fault status 0', fault({ type: 'error', status: 0, error: 'x', message: 'm' }), /^body\.tenant\.tables\.faults\.0\.action: at status, /],
    ['a fault status 999', fault({ type: 'error', status: 999, error: 'x', message: 'm' }), /^body\.tenant\.tables\.faults\.0\.action: at status, /],
    ['a 1e9 ms fault delay', fault({ type: 'delay', ms: 1e9 }), /^body\.tenant\.tables\.faults\.0\.action: at ms, /],
    ['a clock at 2^53-1', change((d) => { d.tenant.clock.now_ms = 2 ** 53 - 1; }), /^body\.tenant\.clock\.now_ms: 9007199254740991 is outside the clock's range/],
    ['spend_usd 1e308', change((d) => { d.tenant.tables.workloads[0].spend_usd = 1e308; }), /^body\.tenant\.tables\.workloads\.0\.spend_usd: /],
    ['a JSON column that is not JSON', change((d) => { d.tenant.tables.rl_events[2].event = '{"kind":'; }), /^body\.tenant\.tables\.rl_events\.2\.event: is not JSON$/],
    ['a task event seq of 2^53-1', change((d) => { d.tenant.tables.workload_events[0].seq = 2 ** 53 - 1; }), /^body\.tenant\.tables\.workload_events\.0\.seq: 9007199254740991 is outside 1 to 2147483647$/],
    ['an unknown workload status', change((d) => { d.tenant.tables.workloads[0].status = 'exploded'; }), /^body\.tenant\.tables\.workloads\.0\.status: "exploded" is not a workload status/],
    ['an event before its workload', change((d) => { d.tenant.tables.rl_events[0].received_at_ms = (d.tenant.tables.workloads[0].created_at_ms as number) - 1; }),
      /^body\.tenant\.tables\.rl_events\.0\.received_at_ms: \d+ is before its workload was created/],
    ['asset contents that are not its bytes', change((d) => { d.tenant.tables.asset_contents[0].data = Buffer.from('not the upload').toString('base64'); }),
      /^body\.tenant\.tables\.assets\.0\.(bytes|sha256): /],
    ['asset parts out of order', change((d) => { d.tenant.tables.asset_contents[0].part = 1; }), /^body\.tenant\.tables\.asset_contents\.0\.part: 1 is not the asset's next part \(0\)$/],
    ['truncation without dropped events', change((d) => { Object.assign(d.tenant.tables.workloads[0], { dropped_events: 0, truncated: 1 }); }),
      /^body\.tenant\.tables\.workloads\.0\.truncated: is 1 with 0 dropped events/],
  ];
  t.ok(base.tenant.tables.rl_events.length > 2 && base.tenant.tables.workloads[0].id === run.id);
  await refusedEach(t, s, attacks, before);
  t.equal(await textOf(s, other), othersBefore, 'another tenant reads exactly what it read before');
});

t.test('a row a route would refuse is refused with its path: a webhook on a host this server does not deliver to, a connection a running workload holds that the document lacks, a secret version never put', async (t) => {
  const s = await startInProcess(t, SETTINGS);
  const base = await everything(t, s);
  t.equal((await s.call('PUT', '/_mock/snapshot', { body: base })).status, 200, 'the unchanged document restores');
  const before = stable((await s.call('GET', '/_mock/snapshot')).body);
  const { tables } = base.tenant;
  const statusOf = (id: unknown) => tables.workloads.find((w) => w.id === id)?.status as string;
  const running = tables.workload_connections.findIndex((wc) => !isTerminal(statusOf(wc.workload_id) as never));
  t.ok(running >= 0, 'a workload that has not ended holds a connection');
  const pinned = tables.connections.findIndex((c) => tables.secrets.some((secret) => secret.id === c.secret_id));
  const secret = tables.secrets.find((x) => x.id === tables.connections[pinned]?.secret_id)!;
  t.ok(pinned >= 0, 'a connection pins a secret the document holds');

  const change = (edit: (d: Doc) => void) => edited(base, edit);
  const cases: [string, Doc, RegExp][] = [
    ['a webhook on a host --webhook-hosts does not list', change((d) => { d.tenant.tables.webhooks[0].url = 'https://hooks.example.com/nodus'; }),
      /^body\.tenant\.tables\.webhooks\.0\.url: the mock delivers webhooks only to the hosts of --webhook-hosts \/ NODUS_MOCK_WEBHOOK_HOSTS .*hooks\.example\.com is not one of them/],
    ['a connection a running workload holds, which the document lacks', change((d) => { d.tenant.tables.workload_connections[running].connection_id = `conn_${'A'.repeat(20)}`; }),
      new RegExp(`^body\\.tenant\\.tables\\.workload_connections\\.${running}\\.connection_id: names connections id conn_A{20}, which this snapshot does not hold$`)],
    ['a connection row of a workload the document lacks', change((d) => { d.tenant.tables.workload_connections[running].workload_id = `wl_${'A'.repeat(20)}`; }),
      new RegExp(`^body\\.tenant\\.tables\\.workload_connections\\.${running}\\.workload_id: names workloads id wl_A{20}, which this snapshot does not hold$`)],
    ['a connection pinning a version its secret never had', change((d) => { d.tenant.tables.connections[pinned].secret_version = (secret.version as number) + 1; }),
      new RegExp(`^body\\.tenant\\.tables\\.connections\\.${pinned}\\.secret_version: ${(secret.version as number) + 1} is after the version of secret ${secret.id} \\(${secret.version}\\)$`)],
  ];
  await refusedEach(t, s, cases, before);
});

t.test('what the routes leave behind restores as it was: an ended workload\'s deleted connection, a connection whose secret was deleted, receipts naming another plan', async (t) => {
  const s = await startInProcess(t, SETTINGS);
  await connect(s, 'wb', liveWandb);
  const ended = await submitCustom(s, 'train', { connections: ['wb'] });
  await ok(s, 'POST', `/v1/workloads/${ended}/cancel`, {});
  await advance(s, 60);
  await ok(s, 'DELETE', '/v1/connections/wb');
  await connect(s, 'warehouse');
  await ok(s, 'DELETE', '/v1/secrets/WAREHOUSE_SECRET');
  const graded = await submitCustom(s);
  const receipt = {
    attempt_id: 'a1', request_id: 'req-a1', task_id: 'task-a1', candidate_sha256: 'a'.repeat(64), plan_sha256: 'b'.repeat(64),
    manifest_sha256: 'c'.repeat(64), state: 'completed', reward: 0.25, cleanup_complete: true,
  };
  // The contract's unverifiable results (500), on purpose: receipts that name another plan.
  await ok(s, 'PUT', `/_mock/workloads/${graded}/grading-plan`, { plan_sha256: 'd'.repeat(64), receipts: [receipt] });
  const doc = (await s.call('GET', '/_mock/snapshot')).body as Doc;
  const { tables } = doc.tenant;
  t.ok(tables.workload_connections.some((wc) => !tables.connections.some((c) => c.id === wc.connection_id)), 'a workload names a connection deleted since');
  t.ok(tables.connections.some((c) => !tables.secrets.some((secret) => secret.id === c.secret_id)), 'a connection pins a secret deleted since');
  t.ok(tables.grading_receipts.some((r) => !tables.grading_plans.some((p) => p.plan_sha256 === JSON.parse(r.receipt as string).plan_sha256)), 'a receipt names another plan');

  const res = await s.call('PUT', '/_mock/snapshot', { body: doc });
  t.equal(res.status, 200, res.text.slice(0, 300));
  t.equal(stable((await s.call('GET', '/_mock/snapshot')).body), stable(doc), 'the tenant is what it was');
  t.equal((await s.call('GET', `/v1/workloads/${graded}/rl-grading-results?revision=1`)).body.error, 'grading_results_unavailable', 'its results still cannot be verified');
});
