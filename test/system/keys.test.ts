// A key's tenant is what --keys says at this start, not what an earlier start wrote in the
// database; the old tenant's data stays under it, and the move is logged.
import { Writable } from 'node:stream';
import pino from 'pino';
import t from '../helpers/tap.js';
import type { Config } from '../../server/config.js';
import { startInProcess, tempDbPath, type Teardown } from '../helpers/server.js';

type Line = { level: number; msg: string; key_id?: string; from_tenant?: string; to_tenant?: string };

/** A server on `db` whose log lines land in an array; the fault rules it shows for `key`. */
async function startOn(t: Teardown, db: string, overrides: Partial<Config>) {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const s = await startInProcess(t, { ...overrides, db }, { logger: pino({ level: 'warn' }, sink) });
  const faults = async (key: string) =>
    ((await s.call('GET', '/_mock/faults', { key })).body.faults as { path: string }[]).map((f) => f.path);
  const moves = () => lines.filter((l) => l.key_id !== undefined).map(({ from_tenant, to_tenant, level }) => ({ from_tenant, to_tenant, level }));
  return { s, faults, moves };
}

const addFault = (s: { call: (m: string, p: string, o: object) => Promise<unknown> }, key: string, path: string) =>
  s.call('POST', '/_mock/faults', { key, body: { path, action: { type: 'error', status: 503, error: 'x' } } });

t.test('restarting with k1 in another tenant moves k1 there; mapping it back finds the old data', async (t) => {
  const db = tempDbPath(t);
  const a = await startOn(t, db, { keys: [{ key: 'k1', tenant: 'teamA' }] });
  await addFault(a.s, 'k1', '/v1/team-a');
  t.same(await a.faults('k1'), ['/v1/team-a']);
  t.same(a.moves(), [], 'a first start moves nothing');
  await a.s.close();

  const b = await startOn(t, db, { keys: [{ key: 'k1', tenant: 'teamB' }] });
  t.same(await b.faults('k1'), [], 'k1 reads teamB, which has nothing yet');
  t.same(b.moves(), [{ from_tenant: 'teamA', to_tenant: 'teamB', level: 40 }], 'the move is logged at warn');
  await addFault(b.s, 'k1', '/v1/team-b');
  await b.s.close();

  const back = await startOn(t, db, { keys: [{ key: 'k1', tenant: 'teamA' }, { key: 'k2', tenant: 'teamB' }] });
  t.same(await back.faults('k1'), ['/v1/team-a'], "teamA's data was kept and is k1's again");
  t.same(await back.faults('k2'), ['/v1/team-b'], "teamB's data stays teamB's");
  t.same(back.moves(), [{ from_tenant: 'teamB', to_tenant: 'teamA', level: 40 }]);
  await back.s.close();

  const same = await startOn(t, db, { keys: [{ key: 'k1', tenant: 'teamA' }] });
  t.same(same.moves(), [], 'the same mapping again moves nothing');
});

t.test('a key that had a tenant by name gets its own again in open mode, or without =tenant', async (t) => {
  const db = tempDbPath(t);
  const named = await startOn(t, db, { keys: [{ key: 'nk_test_named', tenant: 'shared' }] });
  await addFault(named.s, 'nk_test_named', '/v1/shared');
  await named.s.close();

  const open = await startOn(t, db, {});
  t.same(await open.faults('nk_test_named'), [], 'in open mode a key is its own tenant');
  t.match(open.moves(), [{ from_tenant: 'shared', to_tenant: /^tn_/ }]);
  await open.s.close();

  const plain = await startOn(t, db, { keys: [{ key: 'nk_test_named', tenant: 'shared' }] });
  t.same(await plain.faults('nk_test_named'), ['/v1/shared']);
  await plain.s.close();
  const unnamed = await startOn(t, db, { keys: [{ key: 'nk_test_named' }] });
  t.same(await unnamed.faults('nk_test_named'), [], 'strict mode without =tenant: its own tenant too');
  t.match(unnamed.moves(), [{ from_tenant: 'shared', to_tenant: /^tn_/ }]);
});
