import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import t from '../../helpers/tap.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { snapshotJsonSchema } from '../../../openapi/snapshot.js';
import { packageRoot } from '../../../server/boot/package-info.js';
import { advance, launchRun, legCounting } from '../../helpers/rl.js';
import { freshKey, startInProcess, withKey, type Teardown, type TestServer } from '../../helpers/server.js';
import { journalBeforeVersion4 } from '../../helpers/snapshot.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

/** Both servers run alike: a restored tenant continues as the original does only under the same settings. */
const SETTINGS = { clock: 'manual', maxEventsPerWorkload: 20 } as const;

const ok = async (s: TestServer, method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
  const res = await s.call(method, path, { body, headers });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};

async function upload(s: TestServer, text: string, name: string): Promise<string> {
  const res = await s.call('POST', `/v1/assets/upload?name=${name}`, { raw: text, headers: { 'content-type': 'application/octet-stream' } });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A tenant with every kind of state: runs finished, recovered with drops, frozen and running; an asset; a webhook with deliveries; faults; levers; a journal. */
async function everything(t: Teardown, s: TestServer) {
  const receiver = await startReceiver(t);
  await ok(s, 'PUT', '/v1/webhooks', { url: receiver.url, secret: 'whsec_' + Buffer.from('snapshot-test-secret-0123456789').toString('base64') });
  await ok(s, 'PUT', '/_mock/levers', { review_expiry: true, unrecoverable_error_rate: 0.25 });
  await ok(s, 'PUT', '/_mock/budget', { monthly_spend_cap_usd: 500 });
  await ok(s, 'POST', '/_mock/faults', { method: 'GET', path: '/v1/me', times: 1, action: { type: 'error', status: 503, error: 'unavailable' } });
  await ok(s, 'POST', '/_mock/faults', { method: 'POST', path: '/v1/workloads', after: 50, action: { type: 'delay', ms: 1 } });
  if ((await s.call('GET', '/v1/me')).status !== 503) throw new Error('the first fault rule did not apply');

  const done = await launchRun(s, legCounting({ evaluation_tasks: 12, seed: 3 }), 'run-done');
  await advance(s, 120);
  await ok(s, 'POST', `/_mock/workloads/${done.id}/recover`, { replay_last: 3 });
  await advance(s, 4000);
  const frozen = await launchRun(s, legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 6, seed: 7 }), 'run-frozen');
  const running = await launchRun(s, legCounting({ evaluation_tasks: 8, seed: 11 }), 'run-running');
  await advance(s, 150);
  await ok(s, 'POST', `/v1/workloads/${frozen.id}/freeze`, {}, { 'idempotency-key': 'freeze-1' });
  const code = await upload(s, 'print("train")\n', 'train.py');
  const custom = await ok(s, 'POST', '/v1/workloads', {
    requirements: {},
    outcome: { max_cost_usd: 3.0 },
    continuity: { mode: 'checkpointed', resume_on_interruption: true },
    source: { image: 'python:3.11-slim', command: ['python', 'train.py'], asset_id: code },
  }, { 'idempotency-key': 'custom-1' });
  await advance(s, 30);
  await ok(s, 'POST', '/_mock/webhooks/flush');
  return { receiver, workloads: [done.id, frozen.id, running.id, custom.id as string], assets: [code] };
}

/** Every GET of the served document, its path filled with the tenant's ids, plus pages followed by their cursors. */
async function reads(s: TestServer, ids: { workloads: string[]; assets: string[] }): Promise<Record<string, unknown>> {
  const doc = JSON.parse(readFileSync(join(packageRoot(), 'openapi/openapi.json'), 'utf8'));
  const environments = (await ok(s, 'GET', '/v1/rl-environments')).environments as { id: string; examples?: { id: string }[] }[];
  const out: Record<string, unknown> = {};
  const read = async (path: string) => {
    const res = await s.call('GET', path);
    out[path] = { status: res.status, body: path === '/_mock/requests' ? journalAsRead(res.body) : res.body };
    return res.body;
  };
  for (const template of Object.keys(doc.paths).filter((p) => doc.paths[p].get && !p.startsWith('/healthz') && !p.startsWith('/readyz') && p !== '/_mock/snapshot')) {
    const fills: string[] = [];
    if (template.includes('{environment}')) {
      for (const env of environments) {
        if (!template.includes('{example}')) fills.push(template.replace('{environment}', env.id));
        else for (const ex of env.examples ?? []) fills.push(template.replace('{environment}', env.id).replace('{example}', ex.id));
      }
    } else if (template.startsWith('/v1/workloads/{id}')) {
      fills.push(...ids.workloads.map((id) => template.replace('{id}', id)));
    } else if (template.includes('{id}')) {
      fills.push(...ids.assets.map((id) => template.replace('{id}', id)));
    } else fills.push(template);
    for (const path of fills) {
      if (path.includes('{name}')) {
        const outputs = (await read(path.replace('/{name}', ''))) as { outputs?: { name: string }[] };
        for (const o of outputs.outputs ?? []) await read(path.replace('{name}', encodeURIComponent(o.name)));
      } else await read(path);
    }
  }
  for (const id of ids.workloads) {
    // Pages after a cursor, and the cursor each page answers: the same text on both servers.
    let page = await read(`/v1/workloads/${id}/rl-events?limit=7`) as { next_cursor: string };
    page = await read(`/v1/workloads/${id}/rl-events?limit=7&after=${encodeURIComponent(page.next_cursor)}`) as { next_cursor: string };
    const live = await read(`/v1/workloads/${id}/logs/live`) as { next_cursor?: string };
    if (live.next_cursor) await read(`/v1/workloads/${id}/logs/live?after=${encodeURIComponent(live.next_cursor)}`);
    await read(`/v1/workloads/${id}/events?after=2`);
    await read(`/v1/workloads/${id}/rl-grading-results?revision=1`);
  }
  await read('/v1/workloads?limit=2&offset=1');
  return out;
}

/** A restore is journaled in the tenant it restores: its journal has that row more than the original's. */
const withoutRestores = <R extends { path: string }>(rows: R[]) => rows.filter((r) => r.path !== '/_mock/snapshot');

/**
 * The journal as two tenants that made the same requests show it: without the restore, and
 * without the row numbers it moved on by one, nor the Host header (each server its own port).
 */
function journalAsRead(body: { requests: { id: number; path: string; headers: Record<string, string> }[] }) {
  return { ...body, requests: withoutRestores(body.requests).map(({ id: _id, headers: { host: _host, ...headers }, ...row }) => ({ ...row, headers })) };
}

/** Facts of the wall clock and of the one request (its id): never the same twice, on one server or two. */
const WALL_FIELDS = new Set(['wall_at', 'latency_ms', 'duration_ms', 'request_id']);
function withoutWall(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutWall);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !WALL_FIELDS.has(k)).map(([k, v]) => [k, withoutWall(v)]));
}

/** The reads of one tenant as the other would answer them: the tenant and key ids are each server's own. */
function asTenant(value: unknown, from: { tenant: string; keyId: string }, to: { tenant: string; keyId: string }): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll(from.tenant, to.tenant).replaceAll(from.keyId, to.keyId));
}

t.test('a snapshot restored on a fresh server answers every read as the original, and moves on as the original does', async (t) => {
  const a = await startInProcess(t, SETTINGS);
  const ids = await everything(t, a);
  const snapshot = await a.call('GET', '/_mock/snapshot');
  t.equal(snapshot.status, 200);
  t.match(snapshot.headers.get('content-type'), /^application\/json/);
  t.match(snapshot.body, { format: 'nodus-mock.snapshot', version: 4, mock_version: String });
  const tables = snapshot.body.tenant.tables;
  t.ok(tables.workloads.some((w: { dropped_events: number }) => w.dropped_events > 0), 'a run dropped events');
  t.ok(tables.workload_interventions.some((i: { kind: string }) => i.kind === 'recover'), 'a recovered run');
  t.ok(tables.webhook_attempts.length > 0 && tables.webhooks[0].secret.startsWith('whsec_'), 'the webhook, its secret and attempts');
  t.ok(tables.asset_contents.length > 0 && tables.idempotency_keys.length >= 4);
  t.ok(tables.request_journal.some((r: { kind: string }) => r.kind === 'control') && tables.request_journal.some((r: { headers: string }) => r.headers.includes('idempotency-key')),
    'the journal with its control calls and headers');
  t.ok(tables.faults.some((f: { applied: number }) => f.applied === 1), 'a fault rule with its counters');

  // The same key is the same tenant on any server: the document restores into the tenant it was taken from.
  const b = withKey(await startInProcess(t, SETTINGS), a.key);
  const restored = await b.call('PUT', '/_mock/snapshot', { body: snapshot.body });
  t.equal(restored.status, 200, restored.text);
  t.equal(restored.body.rows.workloads, 4);
  t.equal(restored.body.rows.rl_events, tables.rl_events.length);

  const again = (await b.call('GET', '/_mock/snapshot')).body;
  t.match(again.tenant.tables.request_journal.at(-1), { kind: 'control', method: 'PUT', path: '/_mock/snapshot', status: 200 }, 'the restore is journaled after it');
  again.tenant.tables.request_journal = withoutRestores(again.tenant.tables.request_journal);
  t.same({ ...again, created_at: null }, { ...snapshot.body, created_at: null }, 'the restored tenant snapshots to the same document');

  const me = async (s: TestServer) => {
    const body = (await s.call('GET', '/v1/me')).body;
    return { tenant: body.tenant as string, keyId: body.key_id as string };
  };
  const journalA = (await a.call('GET', '/_mock/requests?limit=1000')).body;
  const journalB = (await b.call('GET', '/_mock/requests?limit=1000')).body;
  t.same({ ...journalB, requests: withoutRestores(journalB.requests) }, journalA, 'the journal, row for row');
  const [whoA, whoB] = [await me(a), await me(b)];

  // The journal also notes these reads themselves, each with its wall time and request id.
  t.same(withoutWall(asTenant(await reads(b, ids), whoB, whoA)), withoutWall(await reads(a, ids)), 'every read, before the clocks move');

  // A's cursors are B's: the restored tenant signs with the key the snapshot carried.
  const first = await a.call('GET', `/v1/workloads/${ids.workloads[0]}/rl-events?limit=3`);
  t.same((await b.call('GET', `/v1/workloads/${ids.workloads[0]}/rl-events?limit=3`)).body, first.body, 'the same page and cursor');
  const next = `/v1/workloads/${ids.workloads[0]}/rl-events?limit=3&after=${encodeURIComponent(first.body.next_cursor)}`;
  t.same((await b.call('GET', next)).body, (await a.call('GET', next)).body, 'a cursor the original minted pages the restored tenant');

  await advance(a, 600);
  await advance(b, 600);
  await ok(a, 'POST', `/v1/workloads/${ids.workloads[1]}/resume`, {}, { 'idempotency-key': 'resume-1' });
  await ok(b, 'POST', `/v1/workloads/${ids.workloads[1]}/resume`, {}, { 'idempotency-key': 'resume-1' });
  await advance(a, 5000);
  await advance(b, 5000);
  await ok(a, 'POST', '/_mock/webhooks/flush');
  await ok(b, 'POST', '/_mock/webhooks/flush');
  t.same(withoutWall(asTenant(await reads(b, ids), whoB, whoA)), withoutWall(await reads(a, ids)), 'every read, after the same advances');

  const replayed = await b.call('POST', '/v1/rl-runs', { body: {}, headers: { 'idempotency-key': 'run-done' } });
  t.not(replayed.status, 202, 'a different body under a restored key is not a new launch');
  const resent = await b.call('POST', '/v1/workloads/' + ids.workloads[1] + '/freeze', { body: {}, headers: { 'idempotency-key': 'freeze-1' } });
  t.ok(resent.status < 500);
});

t.test('the document the server writes is valid against the committed JSON Schema', async (t) => {
  const s = await startInProcess(t, SETTINGS);
  await everything(t, s);
  const schema = JSON.parse(readFileSync(join(packageRoot(), 'docs/snapshot.schema.json'), 'utf8'));
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
  const doc = (await s.call('GET', '/_mock/snapshot')).body;
  t.ok(validate(doc), JSON.stringify(validate.errors));
  t.notOk(validate({ ...doc, format: 'other' }), 'and the schema refuses another format');
});

t.test('a bad snapshot is refused with the path of its first problem, and changes nothing', async (t) => {
  const s = await startInProcess(t, { ...SETTINGS, maxSnapshotBytes: 4_000_000 });
  await launchRun(s, legCounting({ seed: 5 }));
  await advance(s, 60);
  const before = (await s.call('GET', '/_mock/snapshot')).body;
  const text = JSON.stringify(before);
  const other = freshKey();
  await launchRun(s, legCounting({ seed: 6 }), 'other-run', other);
  const othersRun = (await s.call('GET', '/_mock/snapshot', { key: other })).body.tenant.tables.workloads[0];

  const tables = before.tenant.tables;
  const bad: [string, string | Uint8Array, number, string, RegExp][] = [
    ['not JSON', 'not json', 400, 'invalid_json', /not valid JSON/],
    ['truncated', text.slice(0, text.length / 2), 400, 'invalid_json', /not valid JSON/],
    ['another format', JSON.stringify({ ...before, format: 'localstack.pod' }), 400, 'invalid_snapshot', /^body\.format: /],
    ['a newer version', JSON.stringify({ ...before, version: 5 }), 400, 'invalid_snapshot', /^body\.version: is newer than this server reads \(4\)/],
    ['a version 2 without the tenant\'s id', JSON.stringify({ ...before, tenant: { ...before.tenant, id: undefined } }), 400, 'invalid_snapshot', /^body\.tenant\.id: is required from version 2 on/],
    ['a version 1 with it', JSON.stringify({ ...before, version: 1 }), 400, 'invalid_snapshot', /^body\.tenant\.id: is not in version 1/],
    ['a version 3 with the journal\'s kind and headers', JSON.stringify({ ...before, version: 3 }), 400, 'invalid_snapshot',
      /^body\.tenant\.tables\.request_journal\.0\.kind: is not in version 3/],
    ['a version 4 journal row without headers', JSON.stringify({ ...before, tenant: { ...before.tenant, tables: { ...tables, request_journal: [{ ...tables.request_journal[0], headers: undefined }] } } }),
      400, 'invalid_snapshot', /^body\.tenant\.tables\.request_journal\.0\.headers: is required from version 4 on/],
    ['a journal row with a credential header', JSON.stringify({ ...before, tenant: { ...before.tenant, tables: { ...tables, request_journal: [{ ...tables.request_journal[0], headers: '{"authorization":"Bearer x"}' }] } } }),
      400, 'invalid_snapshot', /^body\.tenant\.tables\.request_journal\.0\.headers: .*never kept/],
    ['a control row outside /_mock', JSON.stringify({ ...before, tenant: { ...before.tenant, tables: { ...tables, request_journal: [{ ...tables.request_journal[0], kind: 'control' }] } } }),
      400, 'invalid_snapshot', /^body\.tenant\.tables\.request_journal\.0\.path: is not under \/_mock/],
    ['a field of the wrong type', JSON.stringify({ ...before, tenant: { ...before.tenant, tables: { ...tables, workloads: [{ ...tables.workloads[0], revision: 'one' }] } } }), 400, 'invalid_snapshot', /^body\.tenant\.tables\.workloads\.0\.revision: /],
    ['a table missing', JSON.stringify({ ...before, tenant: { ...before.tenant, tables: { ...tables, rl_events: undefined } } }), 400, 'invalid_snapshot', /^body\.tenant\.tables\.rl_events: /],
    ['a row naming a workload it does not hold', JSON.stringify({ ...before, tenant: { ...before.tenant, tables: { ...tables, workloads: [] } } }), 400, 'invalid_snapshot', /^body\.tenant\.tables\.idempotency_keys\.0\.workload_id: names workloads id/],
    ['an id another tenant holds', JSON.stringify({ ...before, tenant: { ...before.tenant, tables: { ...tables, workloads: [...tables.workloads, othersRun] } } }), 400, 'invalid_snapshot', /^body\.tenant\.tables\.workloads\.1\.id: is already taken/],
    ['over the size limit', JSON.stringify({ ...before, mock_version: 'x'.repeat(4_000_000) }), 413, 'payload_too_large', /./],
  ];
  for (const [what, raw, status, code, message] of bad) {
    const res = await s.call('PUT', '/_mock/snapshot', { raw, headers: { 'content-type': 'application/json' } });
    t.equal(res.status, status, `${what}: ${res.text.slice(0, 300)}`);
    t.equal(res.body.error, code, what);
    t.match(res.body.message, message, what);
  }
  const after = (await s.call('GET', '/_mock/snapshot')).body;
  t.equal(after.tenant.tables.request_journal.length, tables.request_journal.length + bad.length, 'each refused restore journaled');
  after.tenant.tables.request_journal = withoutRestores(after.tenant.tables.request_journal);
  t.same({ ...after, created_at: null }, { ...before, created_at: null }, 'the tenant is as it was');
  t.equal((await s.call('PUT', '/_mock/snapshot', { body: before })).status, 200, 'its own snapshot restores over itself');
});

t.test('docs/snapshot.schema.json is what the schema generates (npm run openapi)', async (t) => {
  t.equal(readFileSync(join(packageRoot(), 'docs/snapshot.schema.json'), 'utf8'), snapshotJsonSchema());
});

/**
 * Every id-like word of a read: the server-wide ids, the ids derived from them (freeze, ledger,
 * settlement), tenant and key ids, and cursors (signed over their workload's id).
 */
const ID_WORD = /(?<![0-9A-Za-z_])(?:[a-z]{2,5}_[0-9A-Za-z]{8,}|c1\.[0-9a-z]+\.[0-9A-Za-z_-]{22})(?![0-9A-Za-z_-])/g;
/** The ids the server holds unique across tenants, the tenant's and its key's: none of the original's may survive in a copy. */
const OWNED = /^(wl|asset|flt|sec|conn|msg|tn|key)_/;

/**
 * The copy's reads are the original's with its ids mapped: the id words pair up one to one
 * (each original id always becomes the same copy id, and no two become one), and with them
 * replaced the two are equal. Answers the mapping.
 */
function sameWithIdsMapped(t: Test, copy: unknown, original: unknown, what: string): Map<string, string> {
  const [from, to] = [JSON.stringify(withoutWall(original)), JSON.stringify(withoutWall(copy))];
  const [words, copies] = [from.match(ID_WORD) ?? [], to.match(ID_WORD) ?? []];
  t.equal(copies.length, words.length, `${what}: as many ids`);
  const map = new Map<string, string>();
  const taken = new Map<string, string>();
  words.forEach((word, i) => {
    const mapped = copies[i];
    if ((map.get(word) ?? mapped) !== mapped || (taken.get(mapped) ?? word) !== word) t.fail(`${what}: ${word} and ${mapped} do not pair one to one`);
    map.set(word, mapped);
    taken.set(mapped, word);
  });
  const expected = from.replace(ID_WORD, (word) => map.get(word)!);
  let at = 0;
  while (at < to.length && to[at] === expected[at]) at++;
  t.ok(expected === to, `${what}: equal with the ids mapped`, { first_difference: { copy: to.slice(at - 150, at + 150), original: expected.slice(at - 150, at + 150) } });
  const survivors = [...map].filter(([word, mapped]) => OWNED.test(word) && word === mapped).map(([word]) => word);
  t.same(survivors, [], `${what}: no id of the original's survives in the copy`);
  for (const [word, mapped] of map) if (OWNED.test(word) && (word.length !== mapped.length || word.split('_')[0] !== mapped.split('_')[0])) t.fail(`${what}: ${word} became ${mapped}, another format`);
  return map;
}

const idsOf = (doc: { tenant: { tables: { workloads: { id: string }[]; assets: { id: string }[] } } }) => ({
  workloads: doc.tenant.tables.workloads.map((w) => w.id),
  assets: doc.tenant.tables.assets.map((a) => a.id),
});
const withoutCreatedAt = (doc: Record<string, unknown>) => ({ ...doc, created_at: null });

t.test('one snapshot restored into three tenants of one server: each answers as the original with its own ids, and moves on alone', async (t) => {
  const s = await startInProcess(t, SETTINGS);
  await everything(t, s);
  const doc = (await s.call('GET', '/_mock/snapshot')).body;
  t.match(doc.tenant.id, /^tn_[0-9a-f]{20}$/, 'the document names the tenant it was taken from');
  const copies = [freshKey(), freshKey(), freshKey()].map((key) => withKey(s, key));
  for (const copy of copies) {
    const res = await copy.call('PUT', '/_mock/snapshot', { body: doc });
    t.equal(res.status, 200, res.text);
  }
  const original = await reads(s, idsOf(doc));
  const docs: Record<string, unknown>[] = [];
  const maps: Map<string, string>[] = [];
  for (const [i, copy] of copies.entries()) {
    const own = (await copy.call('GET', '/_mock/snapshot')).body;
    docs.push(own);
    maps.push(sameWithIdsMapped(t, await reads(copy, idsOf(own)), original, `copy ${i + 1}`));
  }
  for (const id of idsOf(doc).workloads) t.equal(new Set(maps.map((m) => m.get(id))).size, 3, `${id}: three copies, three ids`);

  const again = withKey(s, freshKey());
  await again.call('PUT', '/_mock/snapshot', { body: doc });
  await again.call('PUT', '/_mock/snapshot', { body: doc });
  const first = (await again.call('GET', '/_mock/snapshot')).body;
  t.equal((await again.call('PUT', '/_mock/snapshot', { body: doc })).status, 200, 'restored over its own fork');
  t.same(idsOf((await again.call('GET', '/_mock/snapshot')).body), idsOf(first), 'the same document into the same tenant: the same ids each time');

  // A cursor is the copy's own: another copy's, for its own copy of the run, is refused.
  const [one, two] = [idsOf(docs[0] as never).workloads[0], idsOf(docs[1] as never).workloads[0]];
  const page = (await copies[0].call('GET', `/v1/workloads/${one}/rl-events?limit=3`)).body;
  t.equal((await copies[0].call('GET', `/v1/workloads/${one}/rl-events?limit=3&after=${encodeURIComponent(page.next_cursor)}`)).status, 200);
  const foreign = await copies[1].call('GET', `/v1/workloads/${two}/rl-events?limit=3&after=${encodeURIComponent(page.next_cursor)}`);
  t.equal(foreign.status, 400, 'another copy\'s cursor');
  t.equal(foreign.body.error, 'invalid_cursor');

  const everyone = [s, ...copies];
  const stateOf = async (tenant: TestServer) => withoutCreatedAt((await tenant.call('GET', '/_mock/snapshot')).body);
  const steps: ((tenant: TestServer, ids: { workloads: string[] }) => Promise<unknown>)[] = [
    (tenant) => advance(tenant, 900),
    (tenant, ids) => ok(tenant, 'POST', `/_mock/workloads/${ids.workloads[3]}/recover`, { replay_last: 2 }),
    (tenant) => launchRun(tenant, legCounting({ seed: 21 }), 'after-fork'),
  ];
  for (const [i, copy] of copies.entries()) {
    const before = await Promise.all(everyone.map(stateOf));
    await steps[i](copy, idsOf(docs[i] as never));
    // Its deliveries are its own too, and sent in the background: sent now, not while the others are looked at.
    await ok(copy, 'POST', '/_mock/webhooks/flush');
    const after = await Promise.all(everyone.map(stateOf));
    t.notSame(after[i + 1], before[i + 1], `copy ${i + 1} moved`);
    for (const j of everyone.keys()) if (j !== i + 1) t.same(after[j], before[j], `copy ${i + 1} moved, ${j === 0 ? 'the original' : `copy ${j}`} did not`);
  }
});

t.test('a version 1 document still restores, keeping its ids, into any tenant', async (t) => {
  const s = await startInProcess(t, SETTINGS);
  const { id } = await launchRun(s, legCounting({ seed: 4 }));
  await advance(s, 60);
  const doc = (await s.call('GET', '/_mock/snapshot')).body;
  const { workload_rules: _rules, workload_rule_bindings: _bindings, ...v1Tables } = doc.tenant.tables;
  v1Tables.request_journal = journalBeforeVersion4(v1Tables.request_journal);
  t.ok(v1Tables.request_journal.length > 0);
  const v1 = { ...doc, version: 1, tenant: { ...doc.tenant, id: undefined, tables: v1Tables } };
  const b = withKey(await startInProcess(t, SETTINGS), freshKey());
  t.equal((await b.call('PUT', '/_mock/snapshot', { body: v1 })).status, 200);
  const restored = (await b.call('GET', '/_mock/snapshot')).body;
  t.same(idsOf(restored), idsOf(doc), 'its ids, as version 1 restored them');
  t.equal(restored.tenant.cursor_key, doc.tenant.cursor_key, 'and its cursor key');
  t.equal(restored.version, 4, 'written back as the newest version');
  t.match(restored.tenant.tables.request_journal, v1Tables.request_journal.map(() => ({ kind: 'api', headers: '{}', headers_truncated: 0 })),
    'its journal rows as /v1 requests with no header kept');
  t.equal((await b.call('GET', `/v1/workloads/${id}`)).status, 200);
});
