import { setTimeout as sleep } from 'node:timers/promises';
import fp from 'fastify-plugin';
import type { FastifyInstance, onRequestHookHandler, onSendHookHandler, preValidationHookHandler } from 'fastify';
import { API_KEY_PATTERN } from '../config.js';
import type { FaultRow } from '../../store/faults.js';
import type { FaultActionInput } from '../domain/control/faults.js';
import { unauthorized, type Tenant } from '../domain/control/tenants.js';
import { ApiError } from './api-error.js';

/**
 * The key check as a hook that the /v1 and /_mock contexts add (routes/v1/index.ts,
 * routes/mock/index.ts); health, the OpenAPI document and /docs stay public. The resolved tenant
 * is cached per key: the row it mirrors changes only at start (the key mapping moves keys before
 * the first request).
 */
function auth(app: FastifyInstance): void {
  const { control } = app.services;
  const cache = new Map<string, Tenant>();

  function resolve(key: string): Tenant {
    const cached = cache.get(key);
    if (cached) return cached;
    const tenant = control.registerKey(key);
    if (cache.size > 10_000) cache.clear();
    cache.set(key, tenant);
    return tenant;
  }

  app.decorateRequest('tenant', null as unknown as Tenant);
  const authenticate: onRequestHookHandler = (request, _reply, done) => {
    const header = request.headers.authorization;
    if (!header) throw unauthorized('missing API key: send Authorization: Bearer <key>');
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match || !API_KEY_PATTERN.test(match[1])) {
      throw unauthorized('malformed Authorization header: expected "Bearer <key>"');
    }
    request.tenant = resolve(match[1]);
    done();
  };
  app.decorate('authenticate', authenticate);
}

/**
 * Fault rules are data, applied here. They are evaluated in one hook, preValidation: after auth (the tenant is
 * known) and after the body is read (so the journal has it), before the route's own checks. The
 * onSend hook only carries out a drop decided there, since a dropped answer must exist first.
 */
function faults(app: FastifyInstance): void {
  const { requests } = app.services;
  // Shutdown cuts delays short so close() does not wait out a minute-long fault.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());

  app.decorateRequest('fault', null);
  // A delay answers done() later.
  const preValidation: preValidationHookHandler = (request, reply, done) => {
    let rule: FaultRow | undefined;
    try {
      rule = requests.takeFault(request.tenant.id, request.method, request.url);
    } catch (err) {
      return done(err as Error);
    }
    if (!rule) return done();
    const action = JSON.parse(rule.action) as FaultActionInput;
    request.fault = { id: rule.id, type: action.type };
    switch (action.type) {
      case 'error':
        return done(new ApiError(action.status, action.error, action.message, {},
          action.retry_after === undefined ? {} : { 'retry-after': String(action.retry_after) }));
      case 'delay':
        void sleep(action.ms, undefined, { signal: closing.signal }).catch(() => undefined).then(() => done());
        return;
      case 'reset':
        // Hijacked, Fastify runs nothing more for this request; the client sees the socket close.
        reply.hijack();
        request.raw.socket.destroy();
        return done();
      case 'drop_response':
        return done();
    }
  };

  // Destroying the socket before Fastify writes the head means not one byte of the answer leaves.
  const onSend: onSendHookHandler = (request, _reply, payload, done) => {
    if (request.fault?.type === 'drop_response') request.raw.socket.destroy();
    done(null, payload);
  };
  app.decorate('faultHooks', { preValidation, onSend });
}

/** Both, as one plugin the app registers; the contexts add the hooks they decorate. */
export default fp(async function apiHooks(app) {
  auth(app);
  faults(app);
});
