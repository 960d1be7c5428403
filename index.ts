/**
 * The Node API for test suites: `import { startMockServer } from 'nodus-mock'`.
 *
 * The server runs in the caller's process on 127.0.0.1 and a free port. Every helper method is a
 * plain HTTP call to the documented `/_mock` control API with this server's key, so a test that
 * outgrows the helpers can make the same calls itself.
 *
 * The exported types are written out here rather than derived from the zod schemas: they are the
 * published surface (dist/index.d.ts, written by scripts/emit-types.mjs), and deriving them would
 * drag zod, Fastify and better-sqlite3 types into every consumer's compilation. The build checks
 * them against the schemas instead (test/contract/node-api-types.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { buildApp } from './server/app.js';
import { OPTIONS, resolveCli } from './server/config.js';

/** A configured key for strict mode; `tenant` names the tenant it belongs to. */
export interface MockKey {
  key: string;
  tenant?: string;
}

export interface MockServerOptions {
  /** SQLite file or `:memory:`; by default a file in a temporary folder removed by `close()`. */
  db?: string;
  /** Default tenant clock (default `realtime`). */
  clock?: 'realtime' | 'manual';
  /** Virtual seconds per wall second in realtime mode (default 60). */
  timeScale?: number;
  /** Strict mode: only these keys are accepted, and `apiKey` is the first of them. */
  keys?: MockKey[];
  /** pino level for the server's request log (default `silent`). */
  logLevel?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `auto` (default): readable lines when stdout is a terminal, JSON lines otherwise; or `json`, `pretty`. */
  logFormat?: 'auto' | 'json' | 'pretty';
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** TCP port (default 0: a free one). */
  port?: number;
  /** A JSON catalog file whose `recipes` and/or `environments` replace the built-in ones. */
  catalog?: string;
  /** Virtual seconds an Idempotency-Key is remembered (default 86400). */
  idempotencyTtl?: number;
  /** RL events stored per workload before the rest count as dropped (default 100000). */
  maxEventsPerWorkload?: number;
  /** Encoded RL event bytes stored per workload (default 64 MiB). */
  maxEventBytesPerWorkload?: number;
  /** Requests kept per tenant in the journal (default 1000). */
  journalSize?: number;
  /** A scenario file applied at start (see scenarios/). */
  scenario?: string;
  /** Log bytes kept per stage and generation before later lines are dropped (default 8 MiB). */
  maxLogBytesPerAttempt?: number;
  /** The largest asset upload or import, reported as max_import_bytes (default 64 MiB). */
  maxImportBytes?: number;
  /** Asset bytes each tenant may store (default 1 GiB). */
  assetQuotaBytes?: number;
  /** Hosts a webhook may deliver to, comma separated (default `loopback,host.docker.internal`). */
  webhookHosts?: string;
  /** Wall milliseconds a webhook receiver has to answer one delivery (default 5000). */
  webhookTimeoutMs?: number;
  /** More names the server answers to in the Host header, comma separated, or `*` for any. */
  allowedHosts?: string;
  /** Wall milliseconds a client has to send a whole request (default 60000). */
  requestTimeoutMs?: number;
  /** Wall milliseconds an idle kept-alive connection stays open (default 72000). */
  idleTimeoutMs?: number;
  /** Bytes all uploads in progress may hold in memory together (default 256 MiB). */
  uploadMemoryBytes?: number;
  /** Bytes one tenant's uploads in progress may hold in memory together (default 128 MiB). */
  uploadMemoryBytesPerTenant?: number;
  /** The largest snapshot `restore()` and `restore` take (default 4 GiB). */
  maxSnapshotBytes?: number;
  /** A snapshot file (`snapshot()`, GET /_mock/snapshot) restored into `apiKey`'s tenant at start. */
  restore?: string;
  /**
   * The key `restore` restores into, which is then `apiKey`: the same key gives the same tenant
   * on any server, so the snapshot keeps its ids (in strict mode, one of `keys`).
   */
  restoreKey?: string;
}

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

/** Options become CLI flags so they are validated exactly like `nodus-mock --flag`. */
function toFlags(options: MockServerOptions): string[] {
  const flags: string[] = [];
  for (const name of Object.keys(options) as (keyof MockServerOptions)[]) {
    const value = options[name];
    if (value === undefined) continue;
    const option = OPTIONS[name];
    if (!option) throw new TypeError(`startMockServer: unknown option "${name}"`);
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
      {
        ...options,
        host: options.host ?? '127.0.0.1',
        port: options.port ?? 0,
        logLevel: options.logLevel ?? 'silent',
        db: options.db ?? join(tempDir!, 'nodus-mock.db'),
      },
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
