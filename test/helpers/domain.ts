import { WorkloadPayload } from '../../openapi/workload-payload.js';
import { openStore } from '../../store/index.js';
import type { NewJournalRow } from '../../store/journal.js';
import { defaultConfig, type Config } from '../../server/config.js';
import { loadCatalog } from '../../server/domain/catalog/index.js';
import { DomainError, type Refusal } from '../../server/domain/errors.js';
import { createServices, type Services } from '../../server/domain/services.js';
import { freshKey, type Teardown } from './server.js';

/** Fixed wall time, so realtime clocks move only when a test moves them. */
export const WALL_START = Date.parse('2026-01-01T00:00:00Z');

/**
 * Every domain service over a fresh `:memory:` store and the built-in catalog, no server: what
 * buildApp builds, without HTTP, every tenant's clock manual. `tenant()` registers a new key as the
 * auth hook would, as a tenant's first request does.
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

/** A custom workload's payload as the submit route hands it over: parsed by WorkloadPayload. */
export const customPayload = (extra: Record<string, unknown> = {}) =>
  WorkloadPayload.parse({ source: { image: 'python:3.11-slim', command: ['python', 'train.py'] }, ...extra });

/** Submits a custom workload under a fresh Idempotency-Key; its id. */
export async function submit(services: Services, tenantId: string, extra: Record<string, unknown> = {}): Promise<string> {
  const answer = await services.workloads.submit(tenantId, `key-${Math.random().toString(36).slice(2)}`, customPayload(extra));
  return answer.submitted.id;
}

/** The DomainError `fn` throws, as `{refusal, code}`, or undefined when it throws none. */
export function refusal(fn: () => unknown): { refusal: Refusal; code: string } | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return { refusal: err.refusal, code: err.code };
    throw err;
  }
  return undefined;
}

/** A journal row as the journal hook writes one, a GET /v1/me answered 200 at `atMs`, with `fields` over it. */
export const journalRow = ({ atMs, ...fields }: Partial<NewJournalRow> & Pick<NewJournalRow, 'atMs'>): NewJournalRow => ({
  kind: 'api', atMs, wallMs: atMs, method: 'GET', path: '/v1/me', query: '', headers: {}, headersTruncated: false, status: 200,
  requestId: `req_${atMs}`, idempotencyKey: null, replayed: false, fault: null, faultId: null, body: null, bodyJson: false, bodyBytes: 0,
  bodyTruncated: false, durationMs: 1, ...fields,
});
