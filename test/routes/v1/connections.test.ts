import t from '../../helpers/tap.js';
import { connect, liveWandb } from '../../helpers/connections.js';
import { conforms } from '../../helpers/contract.js';
import { advance } from '../../helpers/rl.js';
import { freshKey, startInProcess, type TestServer } from '../../helpers/server.js';

/** What `client.run(image=..., command=[...], connections=[...], sweep_id=...)` sends. */
const customRun = (extra: Record<string, unknown> = {}) => ({
  requirements: {},
  outcome: {},
  continuity: { mode: 'checkpointed', resume_on_interruption: true },
  source: { image: 'python:3.11-slim', command: ['python', 'train.py'] },
  ...extra,
});

const submit = (s: TestServer, body: unknown, key?: string) =>
  s.call('POST', '/v1/workloads', { body, headers: { 'idempotency-key': `k-${Math.random()}` }, key });

t.test('create pins the secret\'s current version; get by name or id; list; verify moves verified_at', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const secret = (await s.call('POST', '/v1/secrets', { body: { name: 'WANDB_API_KEY', value: 'v1' } })).body;
  await s.call('POST', '/v1/secrets', { body: { name: 'WANDB_API_KEY', value: 'v2' } });
  const created = await s.call('POST', '/v1/connections', { body: { name: 'wb', kind: 'wandb', secret: 'WANDB_API_KEY', entity: 'team', project: 'rl', live_mode: true } });
  t.equal(created.status, 201);
  conforms(t, 'POST', '/v1/connections', created);
  const me = (await s.call('GET', '/v1/me')).body;
  t.match(created.body, {
    id: /^conn_[A-Za-z0-9]{20}$/, name: 'wb', kind: 'wandb', secret_id: secret.id, secret_version: 2, scope: 'write',
    entity: 'team', project: 'rl', egress_hosts: ['api.wandb.ai'], live_mode: true, created_by: me.key_id,
  });
  t.equal(created.body.verified_at, created.body.created_at);
  t.notOk('region' in created.body || 'branch' in created.body, 'fields a kind does not have are left out');

  const byId = await s.call('POST', '/v1/connections', { body: { name: 'warehouse', kind: 'neon', secret: secret.id, branch: 'main', region: 'eu-central-1' } });
  t.match(byId.body, { scope: 'read', branch: 'main', region: 'eu-central-1', egress_hosts: ['eu-central-1.aws.neon.tech'], secret_id: secret.id, live_mode: false });

  for (const ref of ['wb', created.body.id]) {
    const got = await s.call('GET', `/v1/connections/${ref}`);
    t.equal(got.status, 200);
    conforms(t, 'GET', '/v1/connections/{id}', got);
    t.same(got.body, created.body, `by ${ref}`);
  }
  const list = await s.call('GET', '/v1/connections');
  conforms(t, 'GET', '/v1/connections', list);
  t.same(list.body.connections.map((c: { name: string }) => c.name), ['wb', 'warehouse']);

  await advance(s, 90);
  const verified = await s.call('POST', '/v1/connections/wb/verify');
  t.equal(verified.status, 200);
  conforms(t, 'POST', '/v1/connections/{id}/verify', verified);
  t.equal(Date.parse(verified.body.verified_at) - Date.parse(created.body.verified_at), 90_000, 'verified_at moved to now');
  t.equal((await s.call('GET', '/v1/connections/wb')).body.verified_at, verified.body.verified_at, 'and stays moved');

  const other = freshKey();
  t.same((await s.call('GET', '/v1/connections', { key: other })).body, { connections: [] }, 'another tenant sees none');
  for (const [method, path] of [['GET', '/v1/connections/wb'], ['POST', `/v1/connections/${created.body.id}/verify`], ['DELETE', '/v1/connections/wb']]) {
    const res = await s.call(method, path, { key: other });
    t.equal(res.status, 404, `${method} ${path} from another tenant`);
    conforms(t, method, path.replace(/\/v1\/connections\/[^/]+/, '/v1/connections/{id}'), res);
  }
});

t.test('each bad connection is a 400 with its own code, the field named', async (t) => {
  const s = await startInProcess(t);
  await s.call('POST', '/v1/secrets', { body: { name: 'KEY', value: 'v' } });
  const base = { name: 'c', kind: 'postgres', secret: 'KEY' };
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['an unknown secret', { secret: 'MISSING' }, 'secret_not_found', /MISSING/],
    ['an unknown secret id', { secret: 'sec_nope' }, 'secret_not_found', /sec_nope/],
    ['a reserved secret', { secret: 'NODUS_KEY' }, 'invalid_connection', /body\.secret/],
    ['a name with a space', { name: 'my db' }, 'invalid_connection', /body\.name/],
    ['the name github', { name: 'GitHub' }, 'invalid_connection', /reserved/],
    ['a conn_ name', { name: 'conn_x' }, 'invalid_connection', /reserved/],
    ['an upper-case region', { region: 'EU' }, 'invalid_connection', /body\.region/],
    ['a branch on postgres', { branch: 'main' }, 'invalid_connection', /neon/],
    ['an entity on postgres', { entity: 'team' }, 'invalid_connection', /body\.entity/],
    ['wandb without a project', { kind: 'wandb', entity: 'team' }, 'invalid_connection', /body\.project/],
    ['live mode on postgres', { live_mode: true }, 'invalid_connection', /body\.live_mode/],
    ['live mode with read scope', { kind: 'wandb', entity: 'e', project: 'p', scope: 'read', live_mode: true }, 'invalid_connection', /body\.live_mode/],
    ['an unknown kind', { kind: 'mysql' }, 'invalid_connection', /body\.kind/],
    ['an unknown field', { password: 'hunter2' }, 'invalid_connection', /password/],
  ];
  for (const [what, fields, code, message] of cases) {
    const res = await s.call('POST', '/v1/connections', { body: { ...base, ...fields } });
    t.equal(res.status, 400, what);
    t.equal(res.body.error, code, what);
    t.match(res.body.message, message, what);
    conforms(t, 'POST', '/v1/connections', res);
  }
  t.same((await s.call('GET', '/v1/connections')).body.connections, [], 'nothing was created');
  t.equal((await s.call('POST', '/v1/connections', { body: base })).status, 201);
  const twice = await s.call('POST', '/v1/connections', { body: base });
  t.equal(twice.body.error, 'connection_exists');
  for (const ref of ['nope', 'conn_nope', '-bad', 'x'.repeat(200)]) {
    t.equal((await s.call('GET', `/v1/connections/${ref}`)).status, 404, ref);
  }
});

t.test('a later put of the pinned secret, or its delete, makes the connection stale for every new use', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const wb = await connect(s, 'wb', liveWandb);
  const db = await connect(s, 'warehouse');
  t.equal((await submit(s, customRun({ connections: ['wb'] }))).status, 202, 'current: admitted');

  await s.call('POST', '/v1/secrets', { body: { name: 'WB_SECRET', value: 'rotated' } });
  const verify = await s.call('POST', '/v1/connections/wb/verify');
  t.equal(verify.status, 400);
  t.equal(verify.body.error, 'connection_stale');
  t.match(verify.body.message, /version 1 .* now at version 2/);
  t.equal((await s.call('GET', '/v1/connections/wb')).body.verified_at, wb.verified_at, 'a refused verify changes nothing');
  for (const path of ['/v1/workloads', '/v1/workloads/validate']) {
    const res = await s.call('POST', path, { body: customRun({ connections: [wb.id] }), headers: { 'idempotency-key': `stale-${path}` } });
    t.equal(res.status, 400, path);
    t.equal(res.body.error, 'connection_stale', path);
  }

  await s.call('DELETE', '/v1/secrets/WAREHOUSE_SECRET');
  const imported = await s.call('POST', '/v1/assets/import', { body: { kind: 'connection_query', connection_id: db.name, sql: 'SELECT 1' } });
  t.equal(imported.status, 400);
  t.equal(imported.body.error, 'connection_stale');
  t.match(imported.body.message, /deleted/);

  const fresh = await s.call('POST', '/v1/connections', { body: { name: 'wb2', secret: 'WB_SECRET', ...liveWandb } });
  t.equal(fresh.body.secret_version, 2, 'a new connection adopts the new version');
  t.equal((await submit(s, customRun({ connections: ['wb2'] }))).status, 202);
});

t.test('a workload\'s connection: unknown, another tenant\'s and not live are refused at submit and validate; sweep_id is kept', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const other = freshKey();
  await connect(s, 'theirs', liveWandb, other);
  await connect(s, 'offline', { kind: 'wandb', entity: 'e', project: 'p' });
  await connect(s, 'reader', { kind: 'wandb', entity: 'e', project: 'p', scope: 'read' });
  await connect(s, 'warehouse');
  const cases: [string, string, string][] = [
    ['an unknown connection', 'nope', 'connection_not_found'],
    ['another tenant\'s', 'theirs', 'connection_not_found'],
    ['wandb without live mode', 'offline', 'connection_not_live'],
    ['wandb with read scope', 'reader', 'connection_not_live'],
    ['a database connection', 'warehouse', 'connection_not_live'],
  ];
  for (const [what, ref, code] of cases) {
    for (const path of ['/v1/workloads', '/v1/workloads/validate']) {
      const res = await s.call('POST', path, { body: customRun({ connections: [ref] }), headers: { 'idempotency-key': `${ref}-${path}` } });
      t.equal(res.status, 400, `${what} at ${path}`);
      t.equal(res.body.error, code, `${what} at ${path}`);
      t.match(res.body.message, /body\.connections\.0/);
    }
  }
  t.equal((await s.call('GET', '/v1/workloads')).body.workloads.length, 0, 'nothing was admitted');
  t.equal((await s.call('POST', '/v1/workloads', { body: customRun({ connections: ['a', 'b'] }), headers: { 'idempotency-key': 'two' } })).status, 400, 'at most one');

  await connect(s, 'wb', liveWandb);
  const valid = await s.call('POST', '/v1/workloads/validate', { body: customRun({ connections: ['wb'], sweep_id: 'lr.sweep-1' }) });
  t.ok(valid.status < 300, 'validate accepts a live connection');
  const admitted = await submit(s, customRun({ connections: ['wb'], sweep_id: 'lr.sweep-1' }));
  t.equal(admitted.status, 202);
  const read = await s.call('GET', `/v1/workloads/${admitted.body.id}`);
  t.match(read.body.payload, { connections: ['wb'], sweep_id: 'lr.sweep-1' }, 'the payload keeps both as sent');
  t.equal((await submit(s, customRun({ sweep_id: '-bad' }))).status, 400, 'a sweep_id of the wrong form is refused');

  const example = await s.call('POST', '/v1/rl-environments/gsm8k/examples/gsm8k-trained/runs', { body: {}, headers: { 'idempotency-key': 'ex' } });
  t.equal(example.status, 202, 'an example run names no connection and is admitted as before');
});

t.test('delete is 409 connection_in_use while an active workload or a query export uses it', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  await connect(s, 'wb', liveWandb);
  await connect(s, 'warehouse');
  const run = await submit(s, customRun({ connections: ['wb'] }));
  const busy = await s.call('DELETE', '/v1/connections/wb');
  t.equal(busy.status, 409);
  t.equal(busy.body.error, 'connection_in_use');
  t.match(busy.body.message, run.body.id);
  conforms(t, 'DELETE', '/v1/connections/{id}', busy);

  const imported = await s.call('POST', '/v1/assets/import', { body: { kind: 'connection_query', connection_id: 'warehouse', sql: 'SELECT 1' } });
  t.equal(imported.status, 202);
  t.equal((await s.call('DELETE', '/v1/connections/warehouse')).body.error, 'connection_in_use', 'an export in progress holds it');

  await advance(s, 3600);
  t.equal((await s.call('GET', `/v1/workloads/${run.body.id}`)).body.status, 'completed');
  t.equal((await s.call('DELETE', '/v1/connections/wb')).status, 204, 'free once the workload ended');
  t.equal((await s.call('DELETE', '/v1/connections/warehouse')).status, 204, 'and once the export is ready');
  t.equal((await s.call('GET', '/v1/connections/wb')).status, 404);
  t.equal((await s.call('DELETE', '/v1/connections/wb')).status, 404, 'a second delete is 404');
  t.match((await s.call('GET', `/v1/workloads/${run.body.id}`)).body.payload, { connections: ['wb'] }, 'history keeps the name');
});

t.test('query imports need a database connection that may read, on its own branch', async (t) => {
  const s = await startInProcess(t);
  await connect(s, 'neon', { kind: 'neon', branch: 'dev' });
  await connect(s, 'writer', { kind: 'postgres', scope: 'write' });
  await connect(s, 'wb', liveWandb);
  const query = (fields: Record<string, unknown>) => s.call('POST', '/v1/assets/import', { body: { kind: 'connection_query', sql: 'SELECT 1', ...fields } });
  t.equal((await query({ connection_id: 'nope' })).body.error, 'connection_not_found');
  t.equal((await query({ connection_id: 'writer' })).body.error, 'connection_scope');
  t.equal((await query({ connection_id: 'wb' })).body.error, 'connection_scope');
  t.equal((await query({ connection_id: 'neon', branch: 'main' })).body.error, 'branch_mismatch');
  t.equal((await query({ connection_id: 'neon', branch: 'dev' })).status, 202);
  t.equal((await query({ connection_id: 'neon' })).status, 202, 'no branch: the connection\'s');
});

t.test('a fault rule makes verify (or create) fail, and leaves the connection as it was', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const wb = await connect(s, 'wb', liveWandb);
  await s.call('POST', '/_mock/faults', { body: { method: 'POST', path: '/v1/connections/{id}/verify', action: { type: 'error', status: 400, error: 'connection_verification_failed', message: 'wandb answered 401' } } });
  await advance(s, 60);
  const failed = await s.call('POST', '/v1/connections/wb/verify');
  t.equal(failed.status, 400);
  t.same(failed.body, { error: 'connection_verification_failed', message: 'wandb answered 401' });
  conforms(t, 'POST', '/v1/connections/{id}/verify', failed);
  t.equal((await s.call('GET', '/v1/connections/wb')).body.verified_at, wb.verified_at, 'verified_at did not move');
  t.not((await s.call('POST', '/v1/connections/wb/verify')).body.verified_at, wb.verified_at, 'the rule spent, verify succeeds');
});
