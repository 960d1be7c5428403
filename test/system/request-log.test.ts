import { Writable } from 'node:stream';
import pino from 'pino';
import t from '../helpers/tap.js';
import { startServer, type Teardown } from '../helpers/server.js';

/** A server whose log lines land in an array. */
async function loggedServer(t: Teardown, level: string) {
  const lines: { route?: string; level: number }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  const s = await startServer(t, {}, { logger: pino({ level }, sink) });
  return { s, routes: () => lines.filter((l) => l.route !== undefined).map((l) => l.route) };
}

t.test('probes are logged at debug level, everything else at info', async (t) => {
  const info = await loggedServer(t, 'info');
  for (const path of ['/healthz', '/readyz']) await info.s.call('GET', path, { key: null });
  await info.s.call('GET', '/v1/me');
  t.same(info.routes(), ['/v1/me'], "a container's health check does not drown the request log");

  const debug = await loggedServer(t, 'debug');
  await debug.s.call('GET', '/readyz', { key: null });
  t.same(debug.routes(), ['/readyz']);
});
