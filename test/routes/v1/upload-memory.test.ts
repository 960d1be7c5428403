// Uploads in progress hold bounded memory: one that would pass a bound is refused at once, before
// its body is read, and a stalled one is cut off by the request timeout, which frees what it held.
// Over raw sockets, since the point is a client that promises more than it sends.
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import t from '../../helpers/tap.js';
import { freshKey, startServer, type ListeningServer } from '../../helpers/server.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** An upload whose headers promise `declared` bytes (chunked when undefined) and which then sends `sent` bytes. */
function stalledUpload(s: ListeningServer, key: string, declared: number | undefined, sent: number) {
  const { port } = new URL(s.url);
  const socket: Socket = connect(Number(port), '127.0.0.1');
  let raw = '';
  socket.on('data', (d) => (raw += d));
  socket.on('error', () => undefined);
  const length = declared === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${declared}`;
  socket.write(`POST /v1/assets/upload?name=data.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/octet-stream\r\n${length}\r\n\r\n`);
  const bytes = Buffer.alloc(sent, 7);
  socket.write(declared === undefined ? Buffer.concat([Buffer.from(`${sent.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]) : bytes);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  /** The first answer on the socket, once it has come whole. */
  const answer = new Promise<Answer>((resolve) => {
    const check = () => {
      const end = raw.indexOf('\r\n\r\n');
      if (end === -1) return;
      const [status, ...lines] = raw.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const body = raw.slice(end + 4, end + 4 + Number(headers['content-length']));
      if (body.length < Number(headers['content-length'])) return;
      resolve({ status: Number(status.split(' ')[1]), headers, body: JSON.parse(body) });
    };
    socket.on('data', check);
  });
  return { socket, answer, closed, finish: () => socket.end(declared === undefined ? '0\r\n\r\n' : Buffer.alloc(declared - sent, 7)) };
}

t.test('past the bounds an upload is refused at once; a stalled one is cut off and its memory freed', async (t) => {
  const s = await startServer(t, { maxImportBytes: 10_000, uploadMemoryBytes: 10_000, uploadMemoryBytesPerTenant: 6_000, requestTimeoutMs: 1_500 });
  const [alice, bob] = [freshKey(), freshKey()];

  // The server starts reading the body once it holds what the Content-Length declares.
  const reading = new Promise((resolve) => s.app.server.once('request', (req: IncomingMessage) => req.once('resume', resolve)));
  const stalled = stalledUpload(s, alice, 5_000, 3_000);
  await reading;
  // Alice holds 5,000: another 2,000 of hers passes her 6,000.
  const hers = stalledUpload(s, alice, 2_000, 0);
  const tenantRefusal = await hers.answer;
  t.equal(tenantRefusal.status, 429);
  t.equal(tenantRefusal.body.error, 'too_many_uploads');
  t.match(tenantRefusal.body.message, /--upload-memory-bytes-per-tenant \/ NODUS_MOCK_UPLOAD_MEMORY_BYTES_PER_TENANT/);
  t.equal(tenantRefusal.headers['retry-after'], '5');
  await hers.closed;
  t.pass('the refused connection is closed: no bytes are read only to be dropped');

  // Bob's 6,000 with Alice's 5,000 passes the server's 10,000.
  const his = stalledUpload(s, bob, 6_000, 0);
  const serverRefusal = await his.answer;
  t.equal(serverRefusal.status, 503);
  t.equal(serverRefusal.body.error, 'uploads_busy');
  t.match(serverRefusal.body.message, /--upload-memory-bytes \/ NODUS_MOCK_UPLOAD_MEMORY_BYTES/);
  t.equal(serverRefusal.headers['retry-after'], '5');

  // Without Content-Length the chunk that would pass the bound is refused.
  const chunked = stalledUpload(s, bob, undefined, 6_000);
  t.equal((await chunked.answer).body.error, 'uploads_busy');

  const timedOut = await stalled.answer;
  t.equal(timedOut.status, 408, 'the stalled upload is answered when the request timeout passes');
  t.equal(timedOut.body.error, 'request_timeout');
  t.match(timedOut.body.message, /--request-timeout-ms/);
  await stalled.closed;
  t.pass('and its connection closed');

  const retried = stalledUpload(s, bob, 6_000, 0);
  retried.finish();
  t.equal((await retried.answer).status, 201, 'its memory was released: the refused upload now fits');
  const mine = stalledUpload(s, alice, 6_000, 6_000);
  t.equal((await mine.answer).status, 201, 'and Alice\'s share too');
  t.equal((await s.call('GET', '/v1/assets', { key: alice })).body.assets.length, 1);
});

t.test('one upload with nothing else in progress proceeds whatever the bounds', async (t) => {
  const s = await startServer(t, { maxImportBytes: 10_000, uploadMemoryBytes: 1_000, uploadMemoryBytesPerTenant: 500 });
  const alone = stalledUpload(s, s.key, 8_000, 8_000);
  t.equal((await alone.answer).status, 201);
  const chunked = stalledUpload(s, s.key, undefined, 8_000);
  chunked.finish();
  t.equal((await chunked.answer).status, 201, 'chunked too');
});

t.test('an idle kept-alive connection is closed after --idle-timeout-ms', async (t) => {
  const s = await startServer(t, { idleTimeoutMs: 200 });
  const { port } = new URL(s.url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  let raw = '';
  socket.on('data', (d) => (raw += d));
  socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  await new Promise<void>((resolve) => socket.on('close', () => resolve()));
  t.match(raw, /^HTTP\/1\.1 200/, 'answered, then closed while idle');
});

t.test('a connection that never sends a byte is closed after --idle-timeout-ms', async (t) => {
  const s = await startServer(t, { idleTimeoutMs: 200 });
  const socket = connect(Number(new URL(s.url).port), '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.on('close', () => resolve()));
  t.pass('closed by the server');
});
