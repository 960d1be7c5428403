import t from '../helpers/tap.js';
import { advance, drainEvents, launchRun, legCounting, lifecycleEvents } from '../helpers/rl.js';
import { freshKey, startInProcess, type TestServer } from '../helpers/server.js';

const ok = async (s: TestServer, method: string, path: string, key: string, body?: unknown) => {
  const res = await s.call(method, path, { key, body });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.body;
};

const counting = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

/** A tenant's run to its end, read as a client reads it: what numbering the wire shows. */
async function numbersOf(s: TestServer, key: string) {
  const { id } = await launchRun(s, legCounting({ evaluation_tasks: 6, seed: 5 }), `numbers-${key}`, key);
  await advance(s, 3600, key);
  const { rows } = await drainEvents(s, id, key, 7);
  const lifecycle = await lifecycleEvents(s, id, key);
  await ok(s, 'GET', `/v1/workloads/${id}/logs/live`, key);
  const journal = (await ok(s, 'GET', '/_mock/requests?limit=1000', key)).requests as { id: number }[];
  return {
    id,
    rl: rows.map((r: { id: string }) => Number(r.id)),
    lifecycle: lifecycle.map((e: { id: number }) => e.id),
    journal: journal.map((r) => r.id).reverse(),
  };
}

t.test('each workload numbers its events from one, and each tenant its journal, whatever other tenants do', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const busy = freshKey();
  await numbersOf(s, busy);
  await numbersOf(s, busy);
  const quiet = await numbersOf(s, freshKey());
  t.same(quiet.rl, counting(1, quiet.rl.length), 'task event row ids are the rows\' positions in the workload\'s evidence');
  t.ok(quiet.rl.length > 7, 'paged past the first page by its cursors');
  t.same(quiet.lifecycle, counting(1, quiet.lifecycle.length));
  t.same(quiet.journal, counting(1, quiet.journal.length), 'journal ids count this tenant\'s requests only');
});

t.test('journal ids are never handed out again, not after a clear nor a reset', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  await ok(s, 'GET', '/v1/me', s.key);
  await ok(s, 'GET', '/v1/me', s.key);
  const before = (await ok(s, 'GET', '/_mock/requests', s.key)).requests as { id: number }[];
  await s.call('DELETE', '/_mock/requests');
  await ok(s, 'GET', '/v1/me', s.key);
  await ok(s, 'POST', '/_mock/reset', s.key);
  await ok(s, 'GET', '/v1/me', s.key);
  const after = (await ok(s, 'GET', '/_mock/requests', s.key)).requests as { id: number; path: string }[];
  const highest = Math.max(...before.map((r) => r.id));
  t.ok(after.length > 0 && after.every((r) => r.id > highest), `every id after the clear is above ${highest}: ${after.map((r) => r.id)}`);
});

const HUGE = 2 ** 53 - 1;

t.test('a restored document cannot move another tenant\'s numbering, whatever numbers it holds', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const attacker = freshKey();
  const { id } = await launchRun(s, legCounting({ evaluation_tasks: 4, seed: 9 }), 'attack', attacker);
  await advance(s, 600, attacker);
  await ok(s, 'POST', '/_mock/faults', attacker, { path: '/v1/never', action: { type: 'reset' } });
  const doc = await ok(s, 'GET', '/_mock/snapshot', attacker);
  const tables = doc.tenant.tables;
  t.ok(tables.rl_events.length && tables.workload_events.length && tables.workload_logs.length && tables.faults.length && tables.request_journal.length);

  // The attack: the last row of each numbered table at 2^53-1. A restore may refuse such a
  // document (its own checks), but whether it takes it or not, no one else may see a difference.
  const attacks = {
    'every per-workload seq at 2^53-1': (d: typeof doc) => {
      for (const table of ['workload_events', 'rl_events', 'workload_logs', 'workload_interventions']) {
        const rows = d.tenant.tables[table];
        if (rows.length) rows[rows.length - 1].seq = HUGE;
      }
    },
    'every key the server numbers at 2^53-1': (d: typeof doc) => {
      for (const [table, column] of [['faults', 'seq'], ['request_journal', 'id'], ['request_journal', 'seq']]) {
        const rows = d.tenant.tables[table];
        rows[rows.length - 1][column] = HUGE;
      }
    },
  };
  for (const [name, edit] of Object.entries(attacks)) {
    const edited = structuredClone(doc);
    edit(edited);
    const restored = await s.call('PUT', '/_mock/snapshot', { key: attacker, body: edited });
    t.ok([200, 400].includes(restored.status), `${name}: restored or refused (${restored.status} ${restored.text.slice(0, 200)})`);
    const other = await numbersOf(s, freshKey());
    t.same(other.rl, counting(1, other.rl.length), `${name}: another tenant's task events still count from one`);
    t.same(other.lifecycle, counting(1, other.lifecycle.length), `${name}: and its lifecycle events`);
    t.same(other.journal, counting(1, other.journal.length), `${name}: and its journal`);
    const rule = await ok(s, 'POST', '/_mock/faults', freshKey(), { path: '/v1/never', action: { type: 'reset' } });
    t.match(rule, { id: /^flt_/ }, `${name}: another tenant still makes fault rules`);
  }

  const restored = await s.call('PUT', '/_mock/snapshot', { key: attacker, body: doc });
  t.equal(restored.status, 200, 'the untouched document restores');
  const again = (await ok(s, 'GET', '/_mock/snapshot', attacker)).tenant.tables;
  // The restore's own call is journaled after it, as the tenant's control call.
  t.match(again.request_journal.splice(tables.request_journal.length), [{ kind: 'control', method: 'PUT', path: '/_mock/snapshot', status: 200 }]);
  t.same(again, tables, 'and exports as it was');
  t.same((await drainEvents(s, id, attacker)).rows.map((r: { id: string }) => r.id), tables.rl_events.map((r: { seq: number }) => String(r.seq)));
});

t.test('a snapshot numbers the keys the server shares as the rows\' positions in the tenant', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  // Another tenant's rows first, so that this tenant's row ids in the database start well above one.
  const other = freshKey();
  for (const path of ['/v1/a', '/v1/b']) await ok(s, 'POST', '/_mock/faults', other, { path, action: { type: 'reset' } });
  await ok(s, 'GET', '/v1/me', other);
  for (const path of ['/v1/c', '/v1/d']) await ok(s, 'POST', '/_mock/faults', s.key, { path, action: { type: 'reset' } });
  const { tables } = (await ok(s, 'GET', '/_mock/snapshot', s.key)).tenant;
  t.same(tables.faults.map((f: { seq: number; path: string }) => [f.seq, f.path]), [[1, '/v1/c'], [2, '/v1/d']]);
  t.same(tables.request_journal.map((r: { id: number }) => r.id), counting(1, tables.request_journal.length));
});
