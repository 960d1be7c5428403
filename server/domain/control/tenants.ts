import { OPEN_MODE_KEY_PREFIX } from '../../config.js';
import { sha256Hex } from '../canonical.js';
import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';

export interface Tenant {
  id: string;
  keyId: string;
}

export const unauthorized = (message: string) => new DomainError('unauthenticated', 'unauthorized', message);

/**
 * Tenants come from keys, so parallel test suites isolate themselves by choosing distinct keys
 * and need no shared reset. Open mode takes any `nk_test_` key and makes it its own tenant on
 * first use; strict mode takes only the configured keys. Registers the key (and its tenant) when
 * new; throws an `unauthenticated` DomainError for a key this server does not accept. Scenario files register their
 * keys through this too.
 */
export function registerKey(deps: DomainContext, key: string): Tenant {
  const entry = deps.config.keys?.find((k) => k.key === key);
  if (deps.config.keys && !entry) throw unauthorized('this API key is not configured on this server');
  if (!deps.config.keys && !key.startsWith(OPEN_MODE_KEY_PREFIX)) {
    throw unauthorized(`API keys on this mock start with ${OPEN_MODE_KEY_PREFIX}`);
  }
  const hash = sha256Hex(key);
  const tenantId = entry?.tenant ?? `tn_${hash.slice(0, 20)}`;
  const registered = deps.store.tenants.register(hash, `key_${hash.slice(0, 16)}`, tenantId, deps.clock.wallNow());
  return { id: registered.tenantId, keyId: registered.keyId };
}

