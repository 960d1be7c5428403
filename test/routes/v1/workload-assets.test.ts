import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { advance, workloadCount } from '../../helpers/rl.js';
import { connect } from '../../helpers/connections.js';
import { freshKey, startInProcess, type TestServer } from '../../helpers/server.js';

/** What `client.run(image=..., source_asset_id=..., command=["python", "train.py"], budget=...)` sends. */
const runWith = (assetId: string, extra: Record<string, unknown> = {}) => ({
  requirements: {},
  outcome: { max_cost_usd: 3.0 },
  continuity: { mode: 'checkpointed', resume_on_interruption: true },
  source: { image: 'python:3.11-slim', command: ['python', 'train.py'], asset_id: assetId },
  ...extra,
});

const submit = (s: TestServer, body: unknown, key?: string) =>
  s.call('POST', '/v1/workloads', { body, headers: { 'idempotency-key': `k-${Math.random()}` }, key });

async function uploaded(s: TestServer, text: string, name: string, key?: string): Promise<string> {
  const res = await s.call('POST', `/v1/assets/upload?name=${name}`, { raw: text, headers: { 'content-type': 'application/octet-stream' }, key });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${res.text}`);
  return res.body.id;
}

t.test('a custom run with its own code: the asset is held while the run is active, then can be deleted', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const code = await uploaded(s, 'print("train")\n', 'train.py');
  const data = await uploaded(s, 'a,b\n1,2\n', 'data.csv');
  const body = runWith(code, { inputs: [{ name: 'data', asset_id: data, cache: true }] });

  const validated = await s.call('POST', '/v1/workloads/validate', { body });
  t.equal(validated.status, 200, validated.text);
  const run = await submit(s, body);
  t.equal(run.status, 202, run.text);
  conforms(t, 'POST', '/v1/workloads', run);

  for (const id of [code, data]) {
    const refused = await s.call('DELETE', `/v1/assets/${id}`);
    t.equal(refused.status, 409, 'held while the workload is active');
    t.equal(refused.body.error, 'asset_in_use', 'the SDK raises AssetInUseError');
    t.match(refused.body.message, run.body.id);
  }
  await advance(s, 3600);
  t.equal((await s.call('GET', `/v1/workloads/${run.body.id}`)).body.status, 'completed');
  t.equal((await s.call('DELETE', `/v1/assets/${code}`)).status, 204, 'released when the run ended');
  t.equal((await s.call('DELETE', `/v1/assets/${data}`)).status, 204);
});

t.test('an asset named by two workloads stays held until both have ended; a cancelled run lets go', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const code = await uploaded(s, 'x', 'train.py');
  const first = await submit(s, runWith(code));
  await advance(s, 60);
  const second = await submit(s, runWith(code, {
    source: undefined,
    stages: [{ id: 'main', source: { image: 'python:3.11-slim', command: ['python', 'train.py'], asset_id: code } }],
  }));
  t.equal(second.status, 202, second.text);
  await s.call('POST', `/v1/workloads/${first.body.id}/cancel`, { headers: { 'idempotency-key': 'c1' } });
  await advance(s, 60);
  t.equal((await s.call('GET', `/v1/workloads/${first.body.id}`)).body.status, 'cancelled');
  const held = await s.call('DELETE', `/v1/assets/${code}`);
  t.equal(held.status, 409, 'the second run still holds it');
  t.match(held.body.message, second.body.id);
  await s.call('POST', `/v1/workloads/${second.body.id}/cancel`, { headers: { 'idempotency-key': 'c2' } });
  await advance(s, 60);
  t.equal((await s.call('DELETE', `/v1/assets/${code}`)).status, 204);
});

t.test('unknown, deleted and another tenant\'s assets are 400 asset_not_found wherever they are named, at submit and validate', async (t) => {
  const s = await startInProcess(t);
  const deleted = await uploaded(s, 'x', 'old.py');
  t.equal((await s.call('DELETE', `/v1/assets/${deleted}`)).status, 204);
  const theirs = await uploaded(s, 'x', 'theirs.py', freshKey());
  const mine = await uploaded(s, 'x', 'mine.py');
  const stage = (assetId: string) => ({ id: 'main', source: { image: 'python:3.11-slim', command: ['python', 'x.py'], asset_id: assetId } });

  for (const [what, missing] of [['unknown', 'asset_doesnotexist'], ['deleted', deleted], ['another tenant\'s', theirs]]) {
    const bodies: Array<[string, unknown]> = [
      ['source.asset_id', runWith(missing)],
      ['stages.1.source.asset_id', runWith(mine, { source: undefined, stages: [stage(mine), { ...stage(missing), id: 'second' }] })],
      ['inputs.1.asset_id', runWith(mine, { inputs: [{ name: 'a', asset_id: mine }, { name: 'b', asset_id: missing }] })],
    ];
    for (const [field, body] of bodies) {
      for (const path of ['/v1/workloads', '/v1/workloads/validate']) {
        const res = await s.call('POST', path, { body, headers: { 'idempotency-key': `k-${Math.random()}` } });
        t.equal(res.status, 400, `${what} at ${field}, ${path}`);
        t.equal(res.body.error, 'asset_not_found', `${what} at ${field}, ${path}`);
        t.match(res.body.message, `body.${field}`);
      }
    }
  }
  t.equal(workloadCount(s), 0, 'nothing was admitted');
  t.equal((await s.call('DELETE', `/v1/assets/${mine}`)).status, 204, 'and nothing holds the good asset');
});

t.test('an asset still importing, or failed, is 400 asset_not_ready; once ready it can be used', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  await connect(s, 'db');
  const importing = (await s.call('POST', '/v1/assets/import', { body: { kind: 'connection_query', connection_id: 'db', sql: 'SELECT 1' } })).body.id;
  const failing = (await s.call('POST', '/v1/assets/import', { body: { kind: 'connection_query', connection_id: 'db', sql: 'SELECT 2' } })).body.id;
  await s.call('POST', `/_mock/assets/${failing}/fail`, { body: {} });
  for (const [id, state] of [[importing, 'importing'], [failing, 'failed']]) {
    const body = runWith(await uploaded(s, 'x', 'train.py'), { inputs: [{ name: 'rows', asset_id: id }] });
    for (const path of ['/v1/workloads', '/v1/workloads/validate']) {
      const res = await s.call('POST', path, { body, headers: { 'idempotency-key': `k-${Math.random()}` } });
      t.equal(res.status, 400, `${state}, ${path}`);
      t.equal(res.body.error, 'asset_not_ready');
      t.match(res.body.message, new RegExp(`asset ${id} is ${state}`));
    }
  }
  await advance(s, 30);
  const ready = await submit(s, runWith(await uploaded(s, 'x', 'train.py'), { inputs: [{ name: 'rows', asset_id: importing }] }));
  t.equal(ready.status, 202, 'ready on the virtual clock, and usable');
});
