import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../server/app.js';
import { defaultConfig, type Config } from '../../server/config.js';
import type { Store } from '../../store/index.js';

/** The part of tap's Test these helpers use. */
export interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface CallOptions {
  body?: unknown;
  /** Sent verbatim instead of JSON-encoding `body`. */
  raw?: string | Uint8Array;
  key?: string | null;
  headers?: Record<string, string>;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export interface TestServer {
  app: FastifyInstance;
  url: string;
  /** This server's default key: a fresh tenant of its own. */
  key: string;
  dbPath: string;
  config: Config;
  /** The app's store, for tests that look at or break the database under the server. */
  store: Store;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<CallResult<T>>;
  close(): Promise<void>;
}

export const freshKey = () => `nk_test_${randomBytes(8).toString('hex')}`;

export function tempDbPath(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'test.db');
}

/** Sends one request; JSON bodies are parsed, anything else is left as text. */
export async function call<T = any>(baseUrl: string, method: string, path: string, key: string | null, options: CallOptions = {}): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const k = options.key === undefined ? key : options.key;
  if (k !== null) headers.authorization = `Bearer ${k}`;
  let body: string | Uint8Array | undefined = options.raw;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('application/json') && text !== '') parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, body: parsed as T };
}

/** The same server as another key's tenant sees it: `call` sends that key unless told otherwise. */
export function withKey(s: TestServer, key: string): TestServer {
  return { ...s, key, call: (method, path, callOptions) => call(s.url, method, path, key, callOptions) };
}

/** Starts the app on 127.0.0.1 port 0 with a temporary database; closed at teardown. */
export async function startServer(
  t: Teardown,
  overrides: Partial<Config> = {},
  options: Omit<AppOptions, 'config'> = {},
): Promise<TestServer> {
  const dbPath = overrides.db ?? tempDbPath(t);
  const config = defaultConfig({ logLevel: 'silent', ...overrides, db: dbPath });
  const app = await buildApp({ config, ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const key = freshKey();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
  };
  t.teardown(close);
  return {
    app,
    url,
    key,
    dbPath,
    config,
    store: app.services.context.store,
    call: (method, path, callOptions) => call(url, method, path, key, callOptions),
    close,
  };
}
