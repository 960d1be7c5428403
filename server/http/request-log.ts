import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { touchesSecrets } from './journal.js';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// A random half per process and a counter: unique like a UUID's 32 hex digits, at a fraction of
// the cost of making and reformatting one per request.
const PROCESS_PART = randomBytes(8).toString('hex');
let issued = 0;

/** Echo a caller's X-Request-Id when it is harmless to log and return, else make one. */
export function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming)) return incoming;
  return `req_${PROCESS_PART}${(++issued).toString(16).padStart(16, '0')}`;
}

/** Routes that container and orchestrator probes poll every few seconds. */
const PROBE_ROUTES = new Set(['/healthz', '/readyz']);

/**
 * Every response carries X-Request-Id; one log line per request once it is answered. Probes log at
 * debug level, or a container's health check (every 5 s) would drown the requests of interest.
 */
export default fp(async function requestLog(app) {
  const log = app.log as Logger;
  // Fastify makes a pino child per request (serialising its bindings); when nothing is logged at
  // any level, as the bench and tests run, the request logs through the app's logger instead.
  if (!log.isLevelEnabled('fatal')) app.setChildLoggerFactory((logger) => logger);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Above info (silent, as the bench and tests run) no request line is logged: no hook at all.
  if (!log.isLevelEnabled('info')) return;
  app.addHook('onResponse', (request, reply, done) => {
    // A query on a secrets path is a near miss of a put and may carry the value (journal.ts, touchesSecrets).
    const queryAt = request.url.indexOf('?');
    const url = queryAt !== -1 && touchesSecrets(request.url.slice(0, queryAt)) ? request.url.slice(0, queryAt) : request.url;
    const level = PROBE_ROUTES.has(request.routeOptions.url ?? '') ? 'debug' : 'info';
    if (log.isLevelEnabled(level)) {
      request.log[level](
        {
          tenant: request.tenant?.id,
          method: request.method,
          route: request.routeOptions.url ?? null,
          url: url.length > 256 ? `${url.slice(0, 256)}…` : url,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
        },
        'request',
      );
    }
    done();
  });
});
