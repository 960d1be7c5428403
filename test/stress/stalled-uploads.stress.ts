// The measure of bounded uploads: 24 uploads that each promise 60 MiB, send 40 MiB and stall, at a
// server started as a user starts it (the CLI, default memory bounds). The server must refuse what
// its bounds do not take, hold at most 512 MiB more RSS than before, and close every stalled
// connection within the request timeout. `npm run test:stress` prints the figures.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import t from 'tap';
import { startCli } from '../helpers/cli.js';
import { tempDbPath } from '../helpers/server.js';

const UPLOADS = Number(process.env.STALLED_UPLOADS ?? 24);
const MIB = 1024 * 1024;
const PROMISED = 60 * MIB;
const SENT = 40 * MIB;
const TIMEOUT_MS = Number(process.env.STALLED_TIMEOUT_MS ?? 20_000);
/** Node looks for late requests once a second (server/app.ts); the rest is scheduling. */
const CLOSE_SLACK_MS = 2_500;

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

interface Outcome {
  status: number | null;
  sentBytes: number;
  closedAfterMs: number;
}

/** One upload that sends SENT of PROMISED bytes and then waits for the server to answer or close. */
function stalledUpload(port: number, key: string): Promise<Outcome> {
  const started = Date.now();
  const socket = connect(port, '127.0.0.1');
  const chunk = Buffer.alloc(MIB, 1);
  let head = '';
  let sentBytes = 0;
  socket.on('data', (d) => (head += d.toString('latin1')));
  socket.on('error', () => undefined);
  socket.write(`POST /v1/assets/upload?name=big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${PROMISED}\r\n\r\n`);
  const pump = () => {
    while (sentBytes < SENT && !socket.destroyed && head === '') {
      sentBytes += chunk.length;
      if (!socket.write(chunk)) return void socket.once('drain', pump);
    }
  };
  pump();
  return new Promise((resolve) =>
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head);
      resolve({ status: status ? Number(status[1]) : null, sentBytes, closedAfterMs: Date.now() - started });
    }),
  );
}

t.test(`${UPLOADS} uploads promising 60 MiB, sending 40 MiB and stalling`, async (t) => {
  const server = startCli(['--port', '0', '--db', tempDbPath(t), '--request-timeout-ms', String(TIMEOUT_MS)]);
  t.teardown(() => server.child.kill('SIGKILL'));
  const { url } = await server.ready;
  const pid = server.child.pid!;
  const port = Number(new URL(url).port);
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 100);

  const outcomes = await Promise.all(Array.from({ length: UPLOADS }, (_, i) => stalledUpload(port, `nk_test_stalled_${i}`)));
  clearInterval(sampler);
  const after = rssOf(pid);

  const refused = outcomes.filter((o) => o.status === 503 || o.status === 429);
  const timedOut = outcomes.filter((o) => o.status === 408);
  const slowestRefusal = Math.max(0, ...refused.map((o) => o.closedAfterMs));
  const slowestClose = Math.max(...timedOut.map((o) => o.closedAfterMs));
  const figures = {
    uploads: UPLOADS,
    refused_at_once: refused.length,
    cut_off_by_timeout: timedOut.length,
    other: outcomes.length - refused.length - timedOut.length,
    request_timeout_ms: TIMEOUT_MS,
    slowest_refusal_ms: slowestRefusal,
    slowest_timeout_close_ms: slowestClose,
    rss_before_mib: Math.round(before / MIB),
    rss_peak_mib: Math.round(peak / MIB),
    rss_peak_increase_mib: Math.round((peak - before) / MIB),
    rss_after_close_mib: Math.round(after / MIB),
  };
  t.comment(JSON.stringify(figures));
  t.equal(refused.length + timedOut.length, UPLOADS, 'each upload was refused or cut off');
  t.ok(refused.length > 0, 'the bounds refused some');
  t.ok(timedOut.length > 0, 'and took some');
  t.ok(peak - before <= 512 * MIB, `at most 512 MiB more RSS (${figures.rss_peak_increase_mib} MiB)`);
  t.ok(slowestClose <= TIMEOUT_MS + CLOSE_SLACK_MS, `every stalled upload closed within the timeout (${slowestClose} ms)`);

  const health = await fetch(`${url}/readyz`);
  t.equal(health.status, 200, 'the server serves on');
});
