/**
 * The Node API for test suites: `import { startMockServer } from 'nodus-mock'`.
 *
 * The server runs in the caller's process on 127.0.0.1 and a free port. Every helper method is a
 * plain HTTP call to the documented `/_mock` control API with this server's key, so a test that
 * outgrows the helpers can make the same calls itself.
 *
 * The exported types of the control calls are written out here rather than derived from the zod
 * schemas: they are the published surface (dist/index.d.ts, written by scripts/emit-types.mjs),
 * and deriving them would drag zod, Fastify and better-sqlite3 types into every consumer's
 * compilation. The build checks them against the schemas instead (test/contract/node-api-types.ts).
 * The options are derived from the settings' table, which emit-types.mjs writes out in full.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { buildApp } from './server/app.js';
import { OPTIONS, resolveCli, type Config, type OptionName, type OptionSpec } from './server/config.js';

/** A configured key for strict mode; `tenant` names the tenant it belongs to. */
export interface MockKey {
  key: string;
  tenant?: string;
}

/** A setting as the Node API takes it: the value the server runs with, a host list as its flag's text. */
type OptionValue<T> = T extends undefined ? never : T extends readonly MockKey[] ? MockKey[] : T extends readonly string[] ? string : T;

/**
 * The settings of docs/configuration.md in camelCase, each with its help and the default it has
 * here. Derived from their table (server/config.ts), written out by scripts/emit-types.mjs.
 */
export type MockServerOptions = { [K in OptionName]?: OptionValue<Config[K]> };

/**
 * A tenant's whole state (docs/snapshots.md; docs/snapshot.schema.json is its JSON Schema).
 * `tenant` is the state itself, to keep as it is and give back to `restore()`.
 */
export interface MockSnapshot {
  format: 'nodus-mock.snapshot';
  version: number;
  /** RFC 3339 wall-clock time it was taken. */
  created_at: string;
  /** The nodus-mock version that wrote it. */
  mock_version: string;
  tenant: Record<string, unknown>;
}

/** What a restore answers: the rows it wrote per table. */
export interface MockSnapshotRestored {
  restored: true;
  rows: Record<string, number>;
}

export type FaultMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A `/_mock/faults` rule as docs/control-api.md's "Fault rules" section documents it. */
export interface FaultRule {
  /** Any method when absent. */
  method?: FaultMethod;
  /** An exact path, a route template (`/v1/workloads/{id}`) or a prefix ending in `*`. */
  path: string;
  /** How many matching requests it applies to (default 1). */
  times?: number;
  /** Let this many matching requests through first (default 0). */
  after?: number;
  action:
    | { type: 'error'; status: number; error: string; message?: string; retry_after?: number }
    | { type: 'delay'; ms: number }
    | { type: 'reset' }
    | { type: 'drop_response' };
}

/** The rule as the server stored it: defaults filled in, with its counts. */
export interface Fault {
  id: string;
  /** null: any method. */
  method: FaultMethod | null;
  path: string;
  times: number;
  after: number;
  action:
    | { type: 'error'; status: number; error: string; message: string; retry_after?: number }
    | { type: 'delay'; ms: number }
    | { type: 'reset' }
    | { type: 'drop_response' };
  /** Applications left (times − applied). */
  remaining: number;
  /** Matching requests this rule has counted while live. */
  seen: number;
  applied: number;
  source: 'api' | 'scenario';
  /** RFC 3339 virtual time. */
  created_at: string;
}

export interface RequestFilter {
  limit?: number;
  /** Exact, a template (`/v1/workloads/{id}`) or a prefix ending in `*`, as fault rules match. */
  path?: string;
  method?: string;
  /** `api`: /v1 requests; `control`: this tenant's own /_mock calls (default both). */
  kind?: 'api' | 'control';
}

/** One `/_mock/requests` journal entry, newest first. */
export interface JournalEntry {
  /** Increases with each journaled request; never reused. */
  id: number;
  /** `api`: a /v1 request; `control`: one of the tenant's own /_mock calls. */
  kind: 'api' | 'control';
  /** RFC 3339 virtual time the request arrived. */
  at: string;
  /** RFC 3339 wall-clock time the request arrived. */
  wall_at: string;
  method: string;
  /** As sent, without the query string. */
  path: string;
  /** As sent; a repeated name gives an array. */
  query: Record<string, string | string[]>;
  /** Lower-case names, values as sent; never credentials or cookies; none for a secrets path. */
  headers: Record<string, string>;
  /** Headers past the first 64 or 8 KiB were left out. */
  headers_truncated: boolean;
  /** null when the connection was reset or dropped unanswered. */
  status: number | null;
  request_id: string;
  idempotency_key: string | null;
  /** The answer carried Idempotent-Replayed: true. */
  replayed: boolean;
  fault: 'error' | 'delay' | 'reset' | 'drop_response' | null;
  fault_id: string | null;
  /** Parsed JSON when JSON, else text; null without a body; a cut body is text ending in a marker. */
  body: unknown;
  /** Bytes received. */
  body_bytes: number;
  body_truncated: boolean;
  duration_ms: number;
}

export interface MockServer {
  /** Base URL, e.g. `http://127.0.0.1:43817`: the SDK's `NODUS_BASE_URL`. */
  readonly url: string;
  /** This server's key (`NODUS_API_KEY`): a fresh `nk_test_` tenant per call in open mode. */
  readonly apiKey: string;
  /** Moves this tenant's virtual time forward; resolves with the new virtual time (RFC 3339). */
  advance(seconds: number): Promise<string>;
  /** Installs a fault rule for this tenant; resolves with the stored rule and its id. */
  fault(rule: FaultRule): Promise<Fault>;
  /** Deletes everything this tenant owns and returns its clock to the configured default. */
  reset(): Promise<void>;
  /** What the server received from this tenant, newest first. */
  requests(filter?: RequestFilter): Promise<JournalEntry[]>;
  /** This tenant's whole state as one document (GET /_mock/snapshot). */
  snapshot(): Promise<MockSnapshot>;
  /** Replaces this tenant's whole state with a snapshot's (PUT /_mock/snapshot), or rejects and changes nothing. */
  restore(snapshot: MockSnapshot): Promise<MockSnapshotRestored>;
  /** Stops listening, closes the database and removes the temporary one. */
  close(): Promise<void>;
}

/** Thrown when a control call is answered with an error; carries the envelope's code. */
export class MockControlError extends Error {
  override name = 'MockControlError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Options become CLI flags so they are validated exactly like `nodus-mock --flag`; where the Node
 * API's default is not the CLI's (`api` in the settings' table), that default fills an absent one.
 */
function toFlags(options: MockServerOptions): string[] {
  const unknown = Object.keys(options).find((name) => !Object.hasOwn(OPTIONS, name));
  if (unknown !== undefined) throw new TypeError(`startMockServer: unknown option "${unknown}"`);
  const flags: string[] = [];
  for (const [name, option] of Object.entries<OptionSpec>(OPTIONS)) {
    const value = options[name as OptionName] ?? option.api?.default;
    if (value === undefined) continue;
    const text = Array.isArray(value)
      ? value.map((k) => (k.tenant === undefined ? k.key : `${k.key}=${k.tenant}`)).join(',')
      : String(value);
    flags.push(`--${option.flag}=${text}`);
  }
  return flags;
}

/**
 * Starts a server in this process. An invalid option rejects with the CLI's one-line reason (an
 * Error named `ConfigError`).
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const tempDir = options.db === undefined ? mkdtempSync(join(tmpdir(), 'nodus-mock-')) : undefined;
  const removeTemp = () => {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  };
  try {
    return await serve(
      { ...options, db: options.db ?? join(tempDir!, 'nodus-mock.db') },
      removeTemp,
    );
  } catch (err) {
    removeTemp();
    throw err;
  }
}

async function serve(options: MockServerOptions, afterClose: () => void): Promise<MockServer> {
  // The caller's environment is not consulted: a test suite gets the same server wherever it runs.
  // Without a key, restored below into this server's own key's tenant, not the CLI's printed one;
  // with one, by the server at start as --restore-key does.
  const { restore, ...flagged } = options;
  const { restoreKey } = options;
  const request = resolveCli(toFlags(restoreKey === undefined ? flagged : options), {});
  if (request.kind !== 'run') throw new Error('unreachable: no --help or --version is passed');
  const { config } = request;
  const app = await buildApp({ config });
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await app.close();
    throw err;
  }
  const address = app.server.address() as AddressInfo;
  const unspecified = address.address === '0.0.0.0' || address.address === '::';
  const hostname = unspecified ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${hostname}:${address.port}`;
  const apiKey = restoreKey ?? (config.keys ? config.keys[0].key : `nk_test_${randomBytes(12).toString('hex')}`);

  /** A call of the control API; a Readable `body` is sent as it streams (a snapshot file is too large to hold). */
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(url + path, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : body instanceof Readable ? (Readable.toWeb(body) as ReadableStream) : JSON.stringify(body),
      duplex: 'half',
    });
    const text = await res.text();
    const parsed = text === '' ? undefined : JSON.parse(text);
    if (!res.ok) {
      throw new MockControlError(res.status, parsed?.error ?? 'unknown', `${method} ${path}: ${res.status} ${parsed?.message ?? text}`);
    }
    return parsed;
  };

  if (restore !== undefined && restoreKey === undefined) {
    try {
      // Opened first, so a file that cannot be read rejects with its own error, not fetch's.
      await control('PUT', '/_mock/snapshot', (await open(restore)).createReadStream());
    } catch (err) {
      await app.close();
      throw err;
    }
  }

  let closing: Promise<void> | undefined;
  return {
    url,
    apiKey,
    advance: async (seconds) => (await control<{ now: string }>('POST', '/_mock/clock/advance', { seconds })).now,
    fault: (rule) => control('POST', '/_mock/faults', rule),
    reset: async () => {
      await control('POST', '/_mock/reset');
    },
    requests: async (filter = {}) => {
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(filter)) if (value !== undefined) query.set(name, String(value));
      const qs = query.toString();
      return (await control<{ requests: JournalEntry[] }>('GET', `/_mock/requests${qs ? `?${qs}` : ''}`)).requests;
    },
    snapshot: () => control('GET', '/_mock/snapshot'),
    restore: (snapshot) => control('PUT', '/_mock/snapshot', snapshot),
    close: () => (closing ??= app.close().then(afterClose)),
  };
}
