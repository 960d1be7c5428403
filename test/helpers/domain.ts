import { openStore } from '../../store/index.js';
import { loadCatalog } from '../../server/domain/catalog/index.js';
import { defaultConfig, type Config } from '../../server/config.js';
import { createServices } from '../../server/domain/services.js';
import type { Teardown } from './server.js';
import { freshKey } from './server.js';

/** Fixed wall time, so realtime clocks move only when a test moves them. */
export const WALL_START = Date.parse('2026-01-01T00:00:00Z');

/**
 * Every domain service over a fresh `:memory:` store and the built-in catalog, no server: what
 * buildApp builds, without HTTP. `tenant()` registers a new key as the auth hook would.
 */
export function domainServices(t: Teardown, overrides: Partial<Config> = {}) {
  const config = defaultConfig({ logLevel: 'silent', clock: 'manual', ...overrides, db: ':memory:' });
  const store = openStore(':memory:');
  t.teardown(() => store.close());
  const wall = { now: WALL_START };
  const services = createServices({ config, store, catalog: loadCatalog(), wallNow: () => wall.now });
  return {
    services,
    store,
    config,
    wall,
    tenant: (key = freshKey()) => services.control.registerKey(key).id,
  };
}
