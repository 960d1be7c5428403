import { createHash } from 'node:crypto';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_KEY_PATTERN, OPEN_MODE_KEY_PREFIX } from '../config.js';
import { ApiError } from '../domain/errors.js';
import { syncHook } from './sync-hook.js';
import type { Tenant } from './types.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const unauthorized = (message: string) => new ApiError(401, 'unauthorized', message);

/**
 * Tenants come from keys (design decision 2). Open mode takes any `nk_test_` key and makes it its
 * own tenant on first use; strict mode takes only the configured keys. Registers the key (and its
 * tenant) when new; throws a 401 ApiError for a key this server does not accept. Scenario files
 * register their keys through this too.
 */
export function registerKey(app: FastifyInstance, key: string): Tenant {
  const entry = app.config.keys?.find((k) => k.key === key);
  if (app.config.keys && !entry) throw unauthorized('this API key is not configured on this server');
  if (!app.config.keys && !key.startsWith(OPEN_MODE_KEY_PREFIX)) {
    throw unauthorized(`API keys on this mock start with ${OPEN_MODE_KEY_PREFIX}`);
  }
  const hash = sha256(key);
  const tenantId = entry?.tenant ?? `tn_${hash.slice(0, 20)}`;
  const registered = app.store.tenants.register(hash, `key_${hash.slice(0, 16)}`, tenantId, app.clock.wallNow());
  return { id: registered.tenantId, keyId: registered.keyId };
}

/**
 * The key check as a hook that the /v1 and /_mock contexts add (routes/index.ts); health, the
 * OpenAPI document and /docs stay public. The resolved tenant is cached per key: the row it
 * mirrors never changes once written.
 */
export default fp(async function auth(app) {
  const cache = new Map<string, Tenant>();

  function resolve(key: string): Tenant {
    const cached = cache.get(key);
    if (cached) return cached;
    const tenant = registerKey(app, key);
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
