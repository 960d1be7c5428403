import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { API_KEY_PATTERN } from '../config.js';
import { unauthorized, type Tenant } from '../domain/control/tenants.js';
import { syncHook } from './sync-hook.js';

/**
 * The key check as a hook that the /v1 and /_mock contexts add (routes/v1/index.ts,
 * routes/mock/index.ts); health, the OpenAPI document and /docs stay public. The resolved tenant
 * is cached per key: the row it mirrors changes only at start (the key mapping moves keys before
 * the first request).
 */
export default fp(async function auth(app) {
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
  function authenticate(request: FastifyRequest): void {
    const header = request.headers.authorization;
    if (!header) throw unauthorized('missing API key: send Authorization: Bearer <key>');
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match || !API_KEY_PATTERN.test(match[1])) {
      throw unauthorized('malformed Authorization header: expected "Bearer <key>"');
    }
    request.tenant = resolve(match[1]);
  }

  app.decorate('authenticate', syncHook(authenticate));
});
