import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import t from '../../helpers/tap.js';
import { conforms } from '../../helpers/contract.js';
import { tarOf, zipOf } from '../../helpers/archives.js';
import { connect } from '../../helpers/connections.js';
import { freshKey, startInProcess, startServer, type CallResult, type TestServer } from '../../helpers/server.js';

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const OCTET = { 'content-type': 'application/octet-stream' };

/** POST /v1/assets/upload as the SDK sends it: raw bytes, `?name=`, application/octet-stream. */
function upload(s: TestServer, data: string | Uint8Array, name?: string, options: { headers?: Record<string, string>; key?: string } = {}) {
  const query = name === undefined ? '' : `?name=${encodeURIComponent(name)}`;
  return s.call('POST', `/v1/assets/upload${query}`, { raw: data, headers: { ...OCTET, ...options.headers }, key: options.key });
}

const list = async (s: TestServer, key?: string) => (await s.call('GET', '/v1/assets', { key })).body;

t.test('an empty tenant lists no assets and this deployment\'s limits', async (t) => {
  const s = await startInProcess(t, { maxImportBytes: 1234, assetQuotaBytes: 56789 });
  const res = await s.call('GET', '/v1/assets');
  t.equal(res.status, 200);
  t.same(res.body, {
    assets: [],
    max_import_bytes: 1234,
    storage_quota_bytes: 56789,
    staged_bytes: 0,
    stored_bytes: 0,
    billing_enabled: false,
    upload_idempotency: true,
  });
  conforms(t, 'GET', '/v1/assets', res);
});

t.test('an upload is stored whole and answered 201 with a ready asset', async (t) => {
  const s = await startInProcess(t);
  const code = 'import sys\nprint("training", sys.argv)\n';
  const res = await upload(s, code, 'train.py');
  t.equal(res.status, 201);
  conforms(t, 'POST', '/v1/assets/upload', res);
  t.match(res.body, {
    id: /^asset_[A-Za-z0-9-]{1,64}$/,
    kind: 'upload',
    name: 'train.py',
    state: 'ready',
    sha256: sha256(code),
    stored_bytes: Buffer.byteLength(code),
    imported_bytes: Buffer.byteLength(code),
    deleted_at: null,
  });
  t.equal(res.body.ready_at, res.body.created_at, 'ready when it was created');
  t.equal(res.headers.get('idempotent-replayed'), null);

  const read = await s.call('GET', `/v1/assets/${res.body.id}`);
  t.equal(read.status, 200);
  t.same(read.body, res.body);
  conforms(t, 'GET', '/v1/assets/{id}', read);

  const content = await s.call('GET', `/_mock/assets/${res.body.id}/content`);
  t.equal(content.status, 200);
  t.equal(content.text, code, 'the control API gives back exactly the bytes sent');
  t.equal(content.headers.get('x-nodus-sha256'), sha256(code));
  t.match((await s.call('GET', `/_mock/assets/${res.body.id}/files`)).body, { archive: null, files: [] });

  const listed = await list(s);
  t.same(listed.assets, [res.body]);
  t.equal(listed.stored_bytes, Buffer.byteLength(code));
});

t.test('a streamed upload of unknown length (chunked, as the SDK sends a file) is hashed as it arrives', async (t) => {
  const s = await startServer(t);
  const chunk = Buffer.alloc(64 * 1024, 7);
  const chunks = 20;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < chunks; i++) controller.enqueue(chunk);
      controller.close();
    },
  });
  const res = await fetch(`${s.url}/v1/assets/upload?name=data.bin`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.key}`, ...OCTET },
    body,
    duplex: 'half',
  } as RequestInit);
  t.equal(res.status, 201);
  const asset = (await res.json()) as { stored_bytes: number; sha256: string };
  t.equal(asset.stored_bytes, chunk.length * chunks);
  t.equal(asset.sha256, sha256(Buffer.concat(Array(chunks).fill(chunk))));
});

t.test('without ?name= an upload is called dataset; names list newest first', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const first = await upload(s, 'a');
  t.equal(first.body.name, 'dataset');
  await s.call('POST', '/_mock/clock/advance', { body: { seconds: 1 } });
  const second = await upload(s, 'b', 'b.txt');
  const third = await upload(s, 'c', 'c.txt');
  t.same((await list(s)).assets.map((a: { name: string }) => a.name), ['c.txt', 'b.txt', 'dataset'], 'same instant: the later first');
  t.ok(second.body.id !== third.body.id);
});

t.test('bad uploads are 400s in the envelope and store nothing', async (t) => {
  const s = await startInProcess(t, { maxImportBytes: 1000 });
  const cases: Array<[string, () => Promise<CallResult>, number, string]> = [
    ['an empty body', () => upload(s, '', 'x.txt'), 400, 'empty_upload'],
    ['no body at all', () => s.call('POST', '/v1/assets/upload?name=x.txt', { headers: OCTET }), 400, 'empty_upload'],
    ['JSON', () => s.call('POST', '/v1/assets/upload?name=x.txt', { body: { data: 'x' } }), 400, 'unsupported_content_type'],
    ['text/plain', () => upload(s, 'x', 'x.txt', { headers: { 'content-type': 'text/plain' } }), 400, 'unsupported_content_type'],
    ['multipart', () => upload(s, '--b\r\n\r\nx\r\n--b--', 'x.txt', { headers: { 'content-type': 'multipart/form-data; boundary=b' } }), 400, 'unsupported_content_type'],
    ['a name with a slash', () => upload(s, 'x', 'dir/x.txt'), 400, 'invalid_name'],
    ['a name with a backslash', () => upload(s, 'x', 'dir\\x.txt'), 400, 'invalid_name'],
    ['a name with a control character', () => upload(s, 'x', 'x\n.txt'), 400, 'invalid_name'],
    ['an empty name', () => upload(s, 'x', ''), 400, 'invalid_name'],
    ['a name twice', () => s.call('POST', '/v1/assets/upload?name=a&name=b', { raw: 'x', headers: OCTET }), 400, 'invalid_name'],
    ['a body over the limit', () => upload(s, Buffer.alloc(1001), 'big.bin'), 400, 'asset_too_large'],
    ['a hash that does not match', () => upload(s, 'x', 'x.txt', { headers: { 'x-nodus-sha256': sha256('y') } }), 400, 'sha256_mismatch'],
    ['a hash that is not hex', () => upload(s, 'x', 'x.txt', { headers: { 'x-nodus-sha256': 'ABC' } }), 400, 'invalid_sha256'],
    ['a key without a hash', () => upload(s, 'x', 'x.txt', { headers: { 'idempotency-key': 'k1' } }), 400, 'sha256_required'],
    ['a key with a space', () => upload(s, 'x', 'x.txt', { headers: { 'idempotency-key': 'a b', 'x-nodus-sha256': sha256('x') } }), 400, 'invalid_idempotency_key'],
  ];
  for (const [what, send, status, error] of cases) {
    const res = await send();
    t.equal(res.status, status, `${what}: ${res.status} ${res.text.slice(0, 160)}`);
    t.equal(res.body.error, error, what);
    t.type(res.body.message, 'string');
  }
  const after = await list(s);
  t.same(after.assets, [], 'nothing was stored');
  t.equal(after.stored_bytes, 0);
  t.equal(s.store.db.prepare('SELECT count(*) AS n FROM asset_contents').pluck().get(), 0);
});

t.test('a name is at most 255 bytes of UTF-8, not 255 characters', async (t) => {
  const s = await startInProcess(t);
  const tooLong = 'é'.repeat(128);
  t.equal(Buffer.byteLength(tooLong), 256);
  const refused = await upload(s, 'x', tooLong);
  t.equal(refused.status, 400, '128 characters, 256 bytes');
  t.match(refused.body, { error: 'invalid_name', message: /\S/ });
  const longest = `${'é'.repeat(127)}x`;
  t.equal(Buffer.byteLength(longest), 255);
  const accepted = await upload(s, 'x', longest);
  t.equal(accepted.status, 201, '255 bytes');
  t.equal(accepted.body.name, longest, 'kept as sent');
});

t.test('an upload past the limit is refused as it streams, and nothing past the limit is kept', async (t) => {
  const s = await startServer(t, { maxImportBytes: 100_000 });
  // node:http, not fetch: it hands over the answer the server sends while the body is still
  // being written, where fetch may report only the connection ending.
  let sent = 0;
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(`${s.url}/v1/assets/upload?name=big.bin`, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, ...OCTET } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(65_536);
    // Far more than the limit, if the server kept reading.
    const write = (): void => {
      while (sent < 50_000_000 && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
  t.equal(answer.status, 400);
  t.equal(JSON.parse(answer.text).error, 'asset_too_large');
  t.ok(sent < 50_000_000, `the server stopped reading (${sent} bytes written)`);
  t.same((await list(s)).assets, []);
  const journal = (await s.call('GET', '/_mock/requests?path=/v1/assets/upload')).body.requests;
  t.equal(journal[0].status, 400);
  t.ok(journal[0].body_bytes > 100_000 && journal[0].body_bytes <= 100_000 + 65_536, `counted up to the chunk that crossed the limit: ${journal[0].body_bytes}`);
});

t.test('keyed uploads: the same bytes and name replay the asset; anything else under the key is 409', async (t) => {
  const s = await startInProcess(t);
  const data = 'rows,1\n';
  const keyed = (key: string, bytes = data, name = 'rows.csv') =>
    upload(s, bytes, name, { headers: { 'idempotency-key': key, 'x-nodus-sha256': sha256(bytes) } });

  const first = await keyed('up-1');
  t.equal(first.status, 201);
  const again = await keyed('up-1');
  t.equal(again.status, 201);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.same(again.body, first.body, 'the same asset');

  const otherBytes = await keyed('up-1', 'rows,2\n');
  t.equal(otherBytes.status, 409);
  t.equal(otherBytes.body.error, 'idempotency_conflict');
  const otherName = await keyed('up-1', data, 'other.csv');
  t.equal(otherName.status, 409);
  t.equal(otherName.body.error, 'idempotency_conflict');
  t.equal((await list(s)).assets.length, 1, 'one asset for the key');

  t.equal((await s.call('DELETE', `/v1/assets/${first.body.id}`)).status, 204);
  const afterDelete = await keyed('up-1');
  t.equal(afterDelete.status, 409, 'a deleted keyed upload is not replaced');
  t.match(afterDelete.body, { error: 'idempotency_conflict', message: /deleted/ });

  const otherTenant = await upload(s, data, 'rows.csv', { key: freshKey(), headers: { 'idempotency-key': 'up-1', 'x-nodus-sha256': sha256(data) } });
  t.equal(otherTenant.status, 201, 'keys are per tenant');
  t.not(otherTenant.body.id, first.body.id);
});

t.test('archives: tar, tar.gz and zip are listed; links, devices, unsafe paths and too many members are refused', async (t) => {
  const s = await startInProcess(t);
  const longPath = `deep/${'d'.repeat(120)}/file.txt`;
  const tar = tarOf([
    { path: 'project/', type: '5' },
    { path: 'project/train.py', content: 'print(1)\n' },
    { path: longPath, content: 'x' },
  ]);
  const expected = [
    { path: 'project', type: 'directory', bytes: 0 },
    { path: 'project/train.py', type: 'file', bytes: 9 },
    { path: longPath, type: 'file', bytes: 1 },
  ];
  for (const [name, data] of [['code.tar', tar], ['code.tar.gz', gzipSync(tar)], ['code.tgz', gzipSync(tar)]] as const) {
    const res = await upload(s, data, name);
    t.equal(res.status, 201, `${name}: ${res.text.slice(0, 200)}`);
    t.equal(res.body.sha256, sha256(data), 'the hash is of the bytes sent, not of what they unpack to');
    const files = await s.call('GET', `/_mock/assets/${res.body.id}/files`);
    t.same(files.body, { asset_id: res.body.id, name, archive: name.endsWith('.tar') ? 'tar' : 'tar.gz', files: expected }, name);
  }
  const zip = await upload(s, zipOf([{ path: 'src/' }, { path: 'src/main.py', content: 'print(2)' }]), 'code.zip');
  t.equal(zip.status, 201);
  t.same((await s.call('GET', `/_mock/assets/${zip.body.id}/files`)).body.files, [
    { path: 'src', type: 'directory', bytes: 0 },
    { path: 'src/main.py', type: 'file', bytes: 8 },
  ]);

  const refused: Array<[string, string, Buffer, string, RegExp]> = [
    ['a tar symlink', 'x.tar', tarOf([{ path: 'link', type: '2', link: '/etc/passwd' }]), 'unsafe_archive', /symbolic link/],
    ['a tar hard link', 'x.tar', tarOf([{ path: 'a', content: 'x' }, { path: 'b', type: '1', link: 'a' }]), 'unsafe_archive', /hard link/],
    ['a tar FIFO', 'x.tar', tarOf([{ path: 'pipe', type: '6' }]), 'unsafe_archive', /FIFO/],
    ['a tar device', 'x.tar', tarOf([{ path: 'tty', type: '3' }]), 'unsafe_archive', /device/],
    ['an absolute tar path', 'x.tar', tarOf([{ path: '/etc/cron.d/x', content: 'x' }]), 'unsafe_archive', /absolute/],
    ['a tar path with ..', 'x.tar', tarOf([{ path: 'a/../../x', content: 'x' }]), 'unsafe_archive', /\.\./],
    ['a zip symlink', 'x.zip', zipOf([{ path: 'link', content: '/etc/passwd', mode: 0o120777 }]), 'unsafe_archive', /symbolic link/],
    ['a zip path with ..', 'x.zip', zipOf([{ path: '../x', content: 'x' }]), 'unsafe_archive', /\.\./],
    ['a zip path with a backslash', 'x.zip', zipOf([{ path: '..\\x', content: 'x' }]), 'unsafe_archive', /backslash/],
    ['a zip FIFO', 'x.zip', zipOf([{ path: 'pipe', mode: 0o010644 }]), 'unsafe_archive', /special/],
    ['a .zip that is not a zip', 'x.zip', Buffer.from('just text'), 'invalid_archive', /end-of-central-directory/],
    ['a .tar that is not a tar', 'x.tar', Buffer.alloc(1024, 'x'), 'invalid_archive', /checksum|octal/],
    ['a .tar.gz that is not gzip', 'x.tar.gz', tar, 'invalid_archive', /gzip/],
    ['a cut tar', 'x.tar', tar.subarray(0, 700), 'invalid_archive', /middle/],
  ];
  for (const [what, name, data, error, message] of refused) {
    const res = await upload(s, data, name);
    t.equal(res.status, 400, what);
    t.equal(res.body.error, error, what);
    t.match(res.body.message, message, what);
  }

  const members = Array.from({ length: 10_001 }, (_, i) => ({ path: `f${i}` }));
  const many = await upload(s, gzipSync(tarOf(members)), 'many.tgz');
  t.match(many.body, { error: 'too_many_files' });
  t.equal(many.status, 400);
  const manyZip = await upload(s, zipOf(members), 'many.zip');
  t.match(manyZip.body, { error: 'too_many_files' });
  const enough = await upload(s, gzipSync(tarOf(members.slice(0, 10_000))), 'enough.tgz');
  t.equal(enough.status, 201, '10,000 members are allowed');
  t.equal((await list(s)).assets.length, 5, 'only the good archives were stored');
});

t.test('a tar.gz that inflates far past the limit is refused without being inflated whole', async (t) => {
  const s = await startInProcess(t, { maxImportBytes: 64 * 1024 });
  // 16 MiB of zeros gzips to a few KiB; the server allows 16 times the limit (1 MiB) inflated.
  const bomb = gzipSync(tarOf([{ path: 'zeros', content: '\0'.repeat(16 * 1024 * 1024) }]));
  t.ok(bomb.length < 64 * 1024);
  const res = await upload(s, bomb, 'bomb.tar.gz');
  t.equal(res.status, 400);
  t.equal(res.body.error, 'archive_too_large');
});

t.test('imports of a URL, a GitHub or a Hugging Face repository are ready at once with stand-in contents', async (t) => {
  const s = await startInProcess(t);
  const imports = [
    [{ kind: 'url', url: 'https://data.example.com/sets/train.jsonl?sig=abc' }, 'url', 'train.jsonl', '1'],
    [{ kind: 'github', repo: 'https://github.com/nodus-compute/examples.git' }, 'github', 'nodus-compute/examples', 'main'],
    [{ kind: 'github', repo: 'acme/trainer', ref: 'v2.1', token: 'ghp_secret' }, 'github', 'acme/trainer', 'v2.1'],
    [{ kind: 'huggingface', repo: 'openai/gsm8k', ref: '', files: ['main/*.parquet'] }, 'huggingface', 'openai/gsm8k', 'main'],
  ] as const;
  for (const [body, kind, name, revision] of imports) {
    const res = await s.call('POST', '/v1/assets/import', { body });
    t.equal(res.status, 201, `${kind}: ${res.text.slice(0, 200)}`);
    conforms(t, 'POST', '/v1/assets/import', res);
    t.match(res.body, { kind, name, revision, state: 'ready' });
    const content = await s.call('GET', `/_mock/assets/${res.body.id}/content`);
    t.equal(sha256(content.text), res.body.sha256);
    const manifest = JSON.parse(content.text);
    t.equal(manifest.nodus_mock_stand_in, true, 'the contents say they are a stand-in');
    t.equal(manifest.kind, kind);
    t.notOk(content.text.includes('ghp_secret'), 'a token is never stored');
  }
  const again = await s.call('POST', '/v1/assets/import', { body: imports[1][0] });
  const first = (await list(s)).assets.find((a: { name: string }) => a.name === 'nodus-compute/examples');
  t.equal(again.body.sha256, first.sha256, 'the same request gives the same stand-in bytes');
});

t.test('bad imports are 400s and store nothing', async (t) => {
  const s = await startInProcess(t);
  const bad: Array<[string, unknown, string, RegExp?]> = [
    ['an unknown kind', { kind: 'ftp', url: 'ftp://x' }, 'invalid_import', /kind/],
    ['no kind', { url: 'https://x.example/a' }, 'invalid_import', /kind/],
    ['http', { kind: 'url', url: 'http://x.example/a' }, 'invalid_import', /https/],
    ['userinfo', { kind: 'url', url: 'https://user:pw@x.example/a' }, 'invalid_import', /credentials/],
    ['not a URL', { kind: 'url', url: 'nope' }, 'invalid_import'],
    ['a token for a URL', { kind: 'url', url: 'https://x.example/a', token: 'abc' }, 'invalid_import', /token/],
    ['no repo', { kind: 'github' }, 'invalid_import', /repo/],
    ['a repo that is not owner/name', { kind: 'github', repo: 'a/b/c' }, 'invalid_import', /owner\/name/],
    ['a repo with ..', { kind: 'huggingface', repo: '../b' }, 'invalid_import'],
    ['a ref with a line break', { kind: 'github', repo: 'a/b', ref: 'main\nx' }, 'invalid_import', /ref/],
    ['a ref too long', { kind: 'github', repo: 'a/b', ref: 'r'.repeat(256) }, 'invalid_import', /ref/],
    ['101 file patterns', { kind: 'huggingface', repo: 'a/b', files: Array(101).fill('*') }, 'invalid_import', /files/],
    ['files for GitHub', { kind: 'github', repo: 'a/b', files: ['*'] }, 'invalid_import', /files/],
    ['a query that is not SELECT', { kind: 'connection_query', connection_id: 'db', sql: 'DROP TABLE x' }, 'invalid_import', /SELECT/],
    ['a query without a connection', { kind: 'connection_query', sql: 'SELECT 1' }, 'invalid_import', /connection_id/],
    ['a query format', { kind: 'connection_query', connection_id: 'db', sql: 'SELECT 1', format: 'xlsx' }, 'invalid_import', /format/],
    ['sql over 60,000', { kind: 'connection_query', connection_id: 'db', sql: `SELECT ${'1'.repeat(60_000)}` }, 'invalid_import'],
  ];
  for (const [what, body, error, message] of bad) {
    const res = await s.call('POST', '/v1/assets/import', { body });
    t.equal(res.status, 400, `${what}: ${res.text.slice(0, 200)}`);
    t.equal(res.body.error, error, what);
    if (message) t.match(res.body.message, message, what);
  }
  const notJson = await s.call('POST', '/v1/assets/import', { raw: 'kind=url', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(notJson.status, 415);
  t.same((await list(s)).assets, []);
});

t.test('a database query import is 202 importing, ready on the tenant\'s virtual clock, and can be reused', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  await connect(s, 'warehouse');
  const query = { kind: 'connection_query', connection_id: 'warehouse', sql: 'SELECT * FROM runs', format: 'csv' };
  const res = await s.call('POST', '/v1/assets/import', { body: query });
  t.equal(res.status, 202);
  conforms(t, 'POST', '/v1/assets/import', res);
  t.match(res.body, {
    kind: 'connection_query',
    state: 'importing',
    sha256: '',
    stored_bytes: 0,
    ready_at: null,
    export: { connection_id: 'warehouse', asset_id: res.body.id, format: 'csv', branch: '', state: 'pending', query_hash: /^[a-f0-9]{64}$/ },
  });
  const staged = await list(s);
  t.ok(staged.staged_bytes > 0, 'an import in progress holds staged bytes');
  t.equal(staged.stored_bytes, 0);

  await s.call('POST', '/_mock/clock/advance', { body: { seconds: 20 } });
  t.equal((await s.call('GET', `/v1/assets/${res.body.id}`)).body.export.state, 'running');
  await s.call('POST', '/_mock/clock/advance', { body: { seconds: 10 } });
  const ready = await s.call('GET', `/v1/assets/${res.body.id}`);
  t.match(ready.body, { state: 'ready', sha256: /^[a-f0-9]{64}$/, export: { state: 'ready' } });
  t.ok(ready.body.stored_bytes > 0);
  t.equal(Date.parse(ready.body.ready_at) - Date.parse(ready.body.created_at), 30_000, 'ready 30 virtual seconds after it was admitted');
  conforms(t, 'GET', '/v1/assets/{id}', ready);
  t.match(await list(s), { staged_bytes: 0, stored_bytes: ready.body.stored_bytes });

  const reused = await s.call('POST', '/v1/assets/import', { body: { ...query, reuse: true } });
  t.equal(reused.status, 200, 'an eligible earlier export is reused');
  t.equal(reused.body.id, res.body.id);
  conforms(t, 'POST', '/v1/assets/import', reused);
  const fresh = await s.call('POST', '/v1/assets/import', { body: { ...query, sql: 'SELECT 2', reuse: true } });
  t.equal(fresh.status, 202, 'nothing to reuse: a new export');
  const notReused = await s.call('POST', '/v1/assets/import', { body: query });
  t.equal(notReused.status, 202, 'without reuse, a new export');
});

t.test('at most two imports in progress; the third, and an upload, answer 409; a failed import frees its place', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  await connect(s, 'db');
  const query = (n: number) => ({ kind: 'connection_query', connection_id: 'db', sql: `SELECT ${n}` });
  const a = await s.call('POST', '/v1/assets/import', { body: query(1) });
  await s.call('POST', '/v1/assets/import', { body: query(2) });
  const third = await s.call('POST', '/v1/assets/import', { body: query(3) });
  t.equal(third.status, 409);
  t.equal(third.body.error, 'imports_in_progress');
  const blockedUpload = await upload(s, 'x', 'x.txt');
  t.equal(blockedUpload.status, 409);
  t.equal(blockedUpload.body.error, 'imports_in_progress');
  t.equal((await s.call('POST', '/v1/assets/import', { body: { kind: 'url', url: 'https://x.example/a' } })).status, 409);

  const deleting = await s.call('DELETE', `/v1/assets/${a.body.id}`);
  t.equal(deleting.status, 409, 'an import in progress cannot be deleted');
  t.equal(deleting.body.error, 'asset_in_use');

  const failed = await s.call('POST', `/_mock/assets/${a.body.id}/fail`, { body: { error: 'relation "runs" does not exist' } });
  t.equal(failed.status, 200);
  t.match(failed.body, { state: 'failed', error: 'relation "runs" does not exist', export: { state: 'cleanup' }, ready_at: null });
  const read = await s.call('GET', `/v1/assets/${a.body.id}`);
  t.match(read.body, { state: 'failed', error: 'relation "runs" does not exist' });
  conforms(t, 'GET', '/v1/assets/{id}', read);
  t.equal((await upload(s, 'x', 'x.txt')).status, 201, 'one in progress: room again');
  const failAgain = await s.call('POST', `/_mock/assets/${a.body.id}/fail`, { body: {} });
  t.equal(failAgain.status, 409, 'only an import in progress can fail');
  t.equal((await s.call('DELETE', `/v1/assets/${a.body.id}`)).status, 204, 'a failed import can be deleted');
});

t.test('the storage quota: an upload or import that would pass it is 409; deleting makes room', async (t) => {
  const s = await startInProcess(t, { assetQuotaBytes: 1000 });
  const first = await upload(s, Buffer.alloc(700), 'a.bin');
  t.equal(first.status, 201);
  const over = await upload(s, Buffer.alloc(301), 'b.bin');
  t.equal(over.status, 409);
  t.equal(over.body.error, 'storage_quota_exceeded');
  t.equal((await upload(s, Buffer.alloc(300), 'c.bin')).status, 201, 'exactly the quota fits');
  t.equal((await s.call('POST', '/v1/assets/import', { body: { kind: 'github', repo: 'a/b' } })).body.error, 'storage_quota_exceeded');
  t.equal((await s.call('DELETE', `/v1/assets/${first.body.id}`)).status, 204);
  t.equal((await upload(s, Buffer.alloc(301), 'b.bin')).status, 201);
  t.equal((await list(s)).stored_bytes, 601);
  t.equal((await upload(s, Buffer.alloc(500), 'd.bin', { key: freshKey() })).status, 201, 'the quota is per tenant');
});

t.test('delete: 204, then deleted (left out of the list, contents gone); another tenant\'s asset is 404', async (t) => {
  const s = await startInProcess(t);
  const asset = (await upload(s, 'bytes', 'a.txt')).body;
  const other = freshKey();
  t.equal((await s.call('GET', `/v1/assets/${asset.id}`, { key: other })).status, 404);
  const foreign = await s.call('DELETE', `/v1/assets/${asset.id}`, { key: other });
  t.equal(foreign.status, 404);
  t.equal(foreign.body.error, 'not_found');
  t.equal((await s.call('GET', `/_mock/assets/${asset.id}/content`, { key: other })).status, 404);

  const res = await s.call('DELETE', `/v1/assets/${asset.id}`);
  t.equal(res.status, 204);
  t.equal(res.text, '');
  const read = await s.call('GET', `/v1/assets/${asset.id}`);
  t.match(read.body, { id: asset.id, state: 'deleted', stored_bytes: 0, deleted_at: /Z$/ });
  conforms(t, 'GET', '/v1/assets/{id}', read);
  t.same((await list(s)).assets, []);
  t.equal((await s.call('GET', `/_mock/assets/${asset.id}/content`)).status, 404);
  t.equal(s.store.db.prepare('SELECT count(*) FROM asset_contents').pluck().get(), 0, 'the bytes went with it');
  t.equal((await s.call('DELETE', `/v1/assets/${asset.id}`)).status, 204, 'deleting twice is harmless');

  for (const id of ['asset_', 'asset_nope', 'wl_x', 'asset_../x', `asset_${'a'.repeat(65)}`, "asset_x' OR '1'='1"]) {
    const missing = await s.call('GET', `/v1/assets/${encodeURIComponent(id)}`);
    t.equal(missing.status, 404, id);
    t.equal(missing.body.error, 'not_found');
    t.equal((await s.call('DELETE', `/v1/assets/${encodeURIComponent(id)}`)).status, 404, id);
  }
});

t.test('the journal records an upload by its size and hash, never its bytes', async (t) => {
  const s = await startInProcess(t);
  const data = 'SECRET-CONTENT\n'.repeat(100);
  await upload(s, data, 'secret.txt');
  const [row] = (await s.call('GET', '/_mock/requests?path=/v1/assets/upload')).body.requests;
  t.same(row.body, { bytes: data.length, sha256: sha256(data) });
  t.equal(row.body_bytes, data.length);
  t.same(row.query, { name: 'secret.txt' });
  t.notOk(JSON.stringify(row).includes('SECRET-CONTENT'));
});

// On a socket: a dropped answer is seen only by a client on a connection.
t.test('a response lost after an upload commits: the asset exists, and a keyed retry answers it', async (t) => {
  const s = await startServer(t);
  await s.call('POST', '/_mock/faults', { body: { method: 'POST', path: '/v1/assets/upload', action: { type: 'drop_response' }, times: 1 } });
  const data = 'model weights';
  const headers = { 'idempotency-key': 'lost-1', 'x-nodus-sha256': sha256(data) };
  await t.rejects(upload(s, data, 'w.bin', { headers }), 'the client gets no answer');
  const [stored] = (await list(s)).assets;
  t.match(stored, { name: 'w.bin', sha256: sha256(data) }, 'the upload committed');
  const retry = await upload(s, data, 'w.bin', { headers });
  t.equal(retry.status, 201);
  t.equal(retry.headers.get('idempotent-replayed'), 'true');
  t.equal(retry.body.id, stored.id);
});

t.test('reset takes the tenant\'s assets and their contents, and no other tenant\'s', async (t) => {
  const s = await startInProcess(t);
  const other = freshKey();
  await upload(s, 'mine', 'a.txt');
  const theirs = (await upload(s, 'theirs', 'b.txt', { key: other })).body;
  const reset = await s.call('POST', '/_mock/reset');
  t.equal(reset.body.deleted.assets, 1);
  t.same((await list(s)).assets, []);
  t.equal((await list(s, other)).assets.length, 1);
  t.equal((await s.call('GET', `/_mock/assets/${theirs.id}/content`, { key: other })).text, 'theirs');
  t.equal(s.store.db.prepare('SELECT count(*) FROM asset_contents').pluck().get(), 1);
});
