import { ownTenantId, type KeyMove } from '../../../store/tenants.js';
import { OPEN_MODE_KEY_PREFIX } from '../../config.js';
import { sha256Hex } from '../json-text.js';
import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';

export interface Tenant {
  id: string;
  keyId: string;
}

export const unauthorized = (message: string) => new DomainError('unauthenticated', 'unauthorized', message);

/**
 * The key-to-tenant mapping is the configuration's, at every start: a key that the database
 * registered to another tenant (an earlier start with another --keys) is moved to the one the
 * configuration gives it, in strict mode as --keys names it, in open mode its own. What the old
 * tenant owns stays under it, reachable again by a key mapped back to it. Answers the moves, for
 * the start-up log.
 */
export function applyKeyMapping(deps: Pick<DomainContext, 'config' | 'committed' | 'moveKeys' | 'clock'>): KeyMove[] {
  const { config, committed } = deps;
  const wanted = config.keys
    ? config.keys.map((entry) => {
        const keyHash = sha256Hex(entry.key);
        return { keyHash, tenantId: entry.tenant ?? ownTenantId(keyHash) };
      })
    : committed.tenants.notInOwnTenant().map((keyHash) => ({ keyHash, tenantId: ownTenantId(keyHash) }));
  return deps.moveKeys(wanted, deps.clock.wallNow());
}

/**
 * Tenants come from keys, so parallel test suites isolate themselves by choosing distinct keys
 * and need no shared reset. Open mode takes any `nk_test_` key and makes it its own tenant on
 * first use; strict mode takes only the configured keys. Registers the key (and its tenant) when
 * new; throws an `unauthenticated` DomainError for a key this server does not accept. Scenario
 * files register their keys through this too.
 */
export function registerKey(deps: Pick<DomainContext, 'config' | 'registerKey' | 'clock'>, key: string): Tenant {
  const entry = deps.config.keys?.find((k) => k.key === key);
  if (deps.config.keys && !entry) throw unauthorized('this API key is not configured on this server');
  if (!deps.config.keys && !key.startsWith(OPEN_MODE_KEY_PREFIX)) {
    throw unauthorized(`API keys on this mock start with ${OPEN_MODE_KEY_PREFIX}`);
  }
  const hash = sha256Hex(key);
  const tenantId = entry?.tenant ?? ownTenantId(hash);
  const registered = deps.registerKey(hash, `key_${hash.slice(0, 16)}`, tenantId, deps.clock.wallNow());
  return { id: registered.tenantId, keyId: registered.keyId };
}

