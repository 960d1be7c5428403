import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echo a caller's X-Request-Id when it is harmless to log and return, else make one. */
export function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming)) return incoming;
  return `req_${randomUUID().replaceAll('-', '')}`;
}

/** Routes that container and orchestrator probes poll every few seconds. */
const PROBE_ROUTES = new Set(['/healthz', '/readyz']);

/**
 * Every response carries X-Request-Id; one log line per request once it is answered. Probes log at
 * debug level, or a container's health check (every 5 s) would drown the requests of interest.
 */
export default fp(async function requestLog(app) {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    const level = PROBE_ROUTES.has(request.routeOptions.url ?? '') ? 'debug' : 'info';
    request.log[level](
      {
        tenant: request.tenant?.id,
        method: request.method,
        route: request.routeOptions.url ?? null,
        url: request.url.length > 256 ? `${request.url.slice(0, 256)}…` : request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
  });
});
