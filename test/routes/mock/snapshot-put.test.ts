import { mkdtempSync, readdirSync, readlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import t from '../../helpers/tap.js';
import { advance, launchRun, legCounting } from '../../helpers/rl.js';
import { freshKey, startInProcess, startServer, tempDbPath, withKey, type Teardown, type ListeningServer, type TestServer } from '../../helpers/server.js';

const SETTINGS = { clock: 'manual' } as const;

/**
 * The restore's spools go to TMPDIR, a folder of this test's own, and are unlinked as they are
 * made: what is left is a spool's name in that folder, or one this process (the server's) holds open.
 */
function ownTmp(t: Teardown): () => string[] {
  const dir = mkdtempSync(join(dirname(tempDbPath(t)), 'tmp-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  t.teardown(() => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  });
  const open = () => readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return []; // closed since the listing
    }
  });
  const spool = join(dir, 'nodus-mock-spool-');
  return () => [...readdirSync(dir).map((name) => join(dir, name)), ...open()].filter((path) => path.startsWith(spool));
}

async function tenantWithRuns(s: TestServer) {
  await launchRun(s, legCounting({ evaluation_tasks: 6, seed: 5 }));
  await advance(s, 90);
  return (await s.call('GET', '/_mock/snapshot')).text;
}

const put = (s: TestServer, raw: string) => s.call('PUT', '/_mock/snapshot', { raw, headers: { 'content-type': 'application/json' } });
/** A document but its date and its journal's restores: each PUT is journaled, restored or refused. */
function state(text: string): string {
  const doc = JSON.parse(text);
  doc.tenant.tables.request_journal = doc.tenant.tables.request_journal.filter((r: { path: string }) => r.path !== '/_mock/snapshot');
  return JSON.stringify({ ...doc, created_at: null });
}
const unchanged = async (s: TestServer, before: string) => state((await s.call('GET', '/_mock/snapshot')).text) === state(before);

t.test('a document whose head comes after its tables restores', async (t) => {
  const s = await startInProcess(t, SETTINGS);
  const text = await tenantWithRuns(s);
  const doc = JSON.parse(text);
  const { clock, id, cursor_key: cursorKey, tables } = doc.tenant;
  const reordered = JSON.stringify({ tenant: { tables, cursor_key: cursorKey, id, clock }, mock_version: doc.mock_version, created_at: doc.created_at, version: doc.version, format: doc.format });
  await launchRun(s, legCounting({ seed: 9 }), 'after-the-snapshot');
  const res = await put(s, reordered);
  t.equal(res.status, 200, res.text.slice(0, 300));
  t.ok(await unchanged(s, text), 'the tenant is the document again');
});

t.test('a body cut mid-row, or a refused row, is refused, changes nothing and leaves no spool', async (t) => {
  const left = ownTmp(t);
  const s = await startInProcess(t, SETTINGS);
  const text = await tenantWithRuns(s);
  const row = text.indexOf('{', text.indexOf('"workload_events":[')) + 40;
  const cut = await put(s, text.slice(0, row));
  t.equal(cut.status, 400);
  t.equal(cut.body.error, 'invalid_json');
  t.match(cut.body.message, /^request body is not valid JSON/);
  const doc = JSON.parse(text);
  doc.tenant.tables.workload_events[3].seq = 'three';
  const bad = await put(s, JSON.stringify(doc));
  t.equal(bad.body.error, 'invalid_snapshot');
  t.match(bad.body.message, /^body\.tenant\.tables\.workload_events\.3\.seq: /);
  const unknown = await put(s, text.replace('"tables":{', '"tables":{"nope":[{"x":1}],'));
  t.match(unknown.body.message, /^body\.tenant\.tables\.nope: unknown field/);
  t.ok(await unchanged(s, text), 'the tenant is as it was');
  t.same(left(), [], 'no spool left');
});

t.test('--max-snapshot-bytes counts the bytes as they stream: a chunked body one byte over it is refused', async (t) => {
  const left = ownTmp(t);
  const source = await startInProcess(t, SETTINGS);
  const text = await tenantWithRuns(source);
  const bytes = Buffer.byteLength(text);
  for (const [limit, status] of [[bytes, 200], [bytes - 1, 413]] as const) {
    const s = await startServer(t, { ...SETTINGS, maxSnapshotBytes: limit });
    const { status: got, body } = await chunked(s, source.key, [Buffer.from(text)]);
    t.equal(got, status, `a ${bytes}-byte document under a limit of ${limit}`);
    if (status === 413) t.equal(JSON.parse(body).error, 'payload_too_large');
  }
  t.same(left(), [], 'no spool left');
});

t.test('a document refused before it has all arrived closes its connection rather than hold up the next request on it', async (t) => {
  // Short, so that without the close the next request would wait only this long for the 408.
  const s = await startServer(t, { ...SETTINGS, requestTimeoutMs: 3000 });
  const text = await tenantWithRuns(s);
  // Refused at the unknown key, before its 4 MiB value is read.
  const body = text.replace('"tenant":{', `"tenant":{"nope":"${'x'.repeat(4 * 2 ** 20)}",`);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.teardown(() => agent.destroy());
  const send = (method: string, path: string, data?: string) => new Promise<{ status: number; connection?: string }>((resolve, reject) => {
    const req = request(`${s.url}${path}`, { method, agent, headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end(data);
  });
  t.same(await send('PUT', '/_mock/snapshot', body), { status: 400, connection: 'close' });
  t.equal((await send('GET', '/_mock/clock')).status, 200, 'the next request is answered at once');
});

/** A PUT of the parts as a chunked body (no Content-Length), under `key`. */
function chunked(s: ListeningServer, key: string, parts: Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${s.url}/_mock/snapshot`, { method: 'PUT', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    for (const part of parts) req.write(part);
    req.end();
  });
}

t.test('a client that goes away mid-upload leaves no spool and the tenant as it was', async (t) => {
  const left = ownTmp(t);
  const s = await startServer(t, SETTINGS);
  // Rows go to files once the document is past the 8 MiB a restore holds in memory: an asset's
  // 9 MiB, as base64, takes the document past that.
  await launchRun(s, legCounting({ evaluation_tasks: 6, seed: 5 }));
  const upload = await s.call('POST', '/v1/assets/upload?name=data.bin', { raw: new Uint8Array(9 * 2 ** 20).map((_, i) => i * 7), headers: { 'content-type': 'application/octet-stream' } });
  t.equal(upload.status, 201);
  const text = (await s.call('GET', '/_mock/snapshot')).text;
  const most = Buffer.from(text).subarray(0, Math.floor(text.length * 0.8));
  const req = request(`${s.url}/_mock/snapshot`, { method: 'PUT', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } });
  req.on('error', () => undefined);
  req.write(most);
  // The server has the first rows once their spool is open; then the client is gone.
  while (left().length === 0) await new Promise((resolve) => setImmediate(resolve));
  req.destroy();
  while (left().length > 0) await new Promise((resolve) => setImmediate(resolve));
  t.pass('the spool is removed');
  t.ok(await unchanged(s, text), 'the tenant is as it was');
});

t.test('a kept document sent again while another takes its place is restored as itself', async (t) => {
  const s = await startInProcess(t, SETTINGS);
  const [a, b, between, target] = [freshKey(), freshKey(), freshKey(), freshKey()].map((key) => withKey(s, key));
  const docA = await tenantWithRuns(a);
  await launchRun(b, legCounting({ evaluation_tasks: 6, seed: 6 }));
  const docB = await tenantWithRuns(b);
  // B's own rows go, so that nothing of the database would refuse B's rows written in A's place.
  t.equal((await b.call('POST', '/_mock/reset')).status, 200);
  const counts = (text: string) => Object.fromEntries(Object.entries(JSON.parse(text).tenant.tables as Record<string, unknown[]>)
    .filter(([table]) => table !== 'request_journal').map(([table, rows]) => [table, rows.length]));
  t.notSame(counts(docB), counts(docA), 'the two documents differ in their rows');
  t.equal((await put(withKey(s, freshKey()), docA)).status, 200, 'A read, checked and kept');

  // A again, into the target: its bytes compared with the kept A up to half, then held back
  // until B, restored in between, has taken A's place.
  const targetId = (await target.call('GET', '/_mock/snapshot')).body.tenant.id;
  const bytes = Buffer.from(docA);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let halfTaken!: () => void;
  const half = new Promise<void>((resolve) => (halfTaken = resolve));
  const chunks = async function* () {
    yield bytes.subarray(0, bytes.length >> 1);
    halfTaken();
    await gate;
    yield bytes.subarray(bytes.length >> 1);
  };
  const again = s.app.services.snapshots.restore(targetId, chunks());
  await half;
  t.equal((await put(between, docB)).status, 200, 'B restored in between, kept in A\'s place');
  release();
  await again;
  t.same(counts((await target.call('GET', '/_mock/snapshot')).text), counts(docA), 'the target holds A\'s rows');
});
