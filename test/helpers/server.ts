import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../server/app.js';
import { templateDatabase } from '../../server/boot/package-info.js';
import { defaultConfig, type Config } from '../../server/config.js';
import { openStore, type Store } from '../../store/index.js';

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
  /** This server's default key: a fresh tenant of its own. */
  key: string;
  dbPath: string;
  config: Config;
  /** The app's store, for tests that look at or break the database under the server. */
  store: Store;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<CallResult<T>>;
  close(): Promise<void>;
}

/** A server on a socket, for what only a socket shows: concurrency, timeouts, dropped connections, streams, other programs. */
export interface ListeningServer extends TestServer {
  url: string;
}

export const freshKey = () => `nk_test_${randomBytes(8).toString('hex')}`;

export function tempDbPath(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-test-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'test.db');
}

interface Exchange {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

type Transport = (request: Exchange) => Promise<{ status: number; headers: Headers; text: string }>;

const overHttp = (baseUrl: string): Transport => async ({ method, path, headers, body }) => {
  const res = await fetch(baseUrl + path, { method, headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

const inProcess = (app: FastifyInstance): Transport => async ({ method, path, headers, body }) => {
  // What fetch would send: it labels a string body text/plain, and light-my-request would
  // JSON-encode a Uint8Array that is not a Buffer.
  if (typeof body === 'string') headers = { 'content-type': 'text/plain;charset=UTF-8', ...headers };
  const payload = body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : body;
  const res = await app.inject({ method: method as 'GET', url: path, headers, payload });
  const answered = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const v of [value].flat()) if (v !== undefined) answered.append(name, String(v));
  }
  return { status: res.statusCode, headers: answered, text: res.body };
};

/** Sends one request; JSON bodies are parsed, anything else is left as text. */
async function send<T>(transport: Transport, method: string, path: string, key: string | null, options: CallOptions = {}): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const k = options.key === undefined ? key : options.key;
  if (k !== null) headers.authorization = `Bearer ${k}`;
  let body: string | Uint8Array | undefined = options.raw;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await transport({ method, path, headers, body });
  let parsed: unknown = res.text;
  if ((res.headers.get('content-type') ?? '').includes('application/json') && res.text !== '') parsed = JSON.parse(res.text);
  return { status: res.status, headers: res.headers, text: res.text, body: parsed as T };
}

/** Sends one request over HTTP to `baseUrl`. */
export const call = <T = any>(baseUrl: string, method: string, path: string, key: string | null, options?: CallOptions) =>
  send<T>(overHttp(baseUrl), method, path, key, options);

/** The same server as another key's tenant sees it: `call` sends that key unless told otherwise. */
export function withKey<S extends TestServer>(s: S, key: string): S {
  return { ...s, key, call: (method: string, path: string, options: CallOptions = {}) => s.call(method, path, options.key === undefined ? { ...options, key } : options) };
}

/**
 * The app over a temporary database (or `overrides.db`), closed at teardown; `connect` readies it
 * and answers how calls reach it, with what it adds to the server (a url).
 */
async function open<Extra extends object>(
  t: Teardown,
  overrides: Partial<Config>,
  options: Omit<AppOptions, 'config'>,
  connect: (app: FastifyInstance) => Promise<[Transport, Extra]>,
): Promise<TestServer & Extra> {
  const dbPath = overrides.db ?? tempDbPath(t);
  const config = defaultConfig({ logLevel: 'silent', ...overrides, db: dbPath });
  // Opened here as the app would open it, so tests can read it (the domain holds no Store), and
  // closed after the app as the app would close its own.
  const store = options.store ?? openStore(config.db, { lock: true, template: templateDatabase() });
  const app = await buildApp({ config, ...options, store }).catch((err) => {
    if (!options.store) store.close();
    throw err;
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
    if (!options.store) store.close();
  };
  t.teardown(close);
  const [transport, extra] = await connect(app);
  const key = freshKey();
  return {
    app, key, dbPath, config, store, close, ...extra,
    call: (method, path, callOptions) => send(transport, method, path, key, callOptions),
  };
}

/** Starts the app on 127.0.0.1 port 0 with a temporary database; closed at teardown. */
export function startServer(t: Teardown, overrides: Partial<Config> = {}, options: Omit<AppOptions, 'config'> = {}): Promise<ListeningServer> {
  return open(t, overrides, options, async (app) => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    return [overHttp(url), { url }];
  });
}

/** The same app with no socket: `call` goes through `app.inject`, for everything but what needs a socket (see ListeningServer). */
export function startInProcess(t: Teardown, overrides: Partial<Config> = {}, options: Omit<AppOptions, 'config'> = {}): Promise<TestServer> {
  return open(t, overrides, options, async (app) => {
    await app.ready();
    return [inProcess(app), {}];
  });
}
