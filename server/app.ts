import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { built } from '../openapi/lazy.js';
import { openStore, type Store } from '../store/index.js';
import apiHooks from './http/api-hooks.js';
import { loadCatalog, type Catalog } from './domain/catalog/index.js';
import { OPTIONS, printedKey, type Config } from './config.js';
import docs from './http/docs.js';
import { ApiError } from './http/api-error.js';
import errorHandler, { sendApiError } from './http/error-handler.js';
import hosts from './http/hosts.js';
import journal from './http/journal.js';
import { parseJsonBody } from './http/json-body.js';
import { isStreamedBody } from './http/streamed-body.js';
import { createServices } from './domain/services.js';
import { committedDocument, describeRoutes } from './http/openapi-document.js';
import { createLogger } from './logger.js';
import { templateDatabase } from './boot/package-info.js';
import requestLog, { requestId } from './http/request-log.js';
import { loadScenario } from './domain/control/scenarios.js';
import healthRoutes from '../routes/health.js';
import mockRoutes from '../routes/mock/index.js';
import uiRoutes from '../routes/ui.js';
import v1Routes from '../routes/v1/index.js';
import './http/types.js';

const BODY_LIMIT_BYTES = 1024 * 1024;
const URL_LIMIT_BYTES = 8 * 1024;

export interface AppOptions {
  config: Config;
  /** An already opened store; by default the app opens `config.db`, holding its lock, and closes it on close. */
  store?: Store;
  logger?: Logger;
  /** The recipe and environment catalog; by default the built-in files, sections of `config.catalog` replacing them. */
  catalog?: Catalog;
  /** Wall clock behind realtime virtual time; tests may replace it. */
  wallNow?: () => number;
  /**
   * Registers @fastify/swagger, so that `app.swagger()` generates the OpenAPI document from the
   * route schemas (scripts/openapi.ts). The app serves the committed document either way.
   */
  describe?: boolean;
}

function clientErrorAnswer(err: NodeJS.ErrnoException, requestTimeoutMs: number): [number, string, object] {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return [431, 'Request Header Fields Too Large', { error: 'headers_too_large', message: 'request headers (or the URL) exceed the server limit' }];
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    const { flag, env } = OPTIONS.requestTimeoutMs;
    return [408, 'Request Timeout', { error: 'request_timeout', message: `the request did not arrive whole within ${requestTimeoutMs} ms (--${flag} / ${env}); the connection is closed` }];
  }
  return [400, 'Bad Request', { error: 'bad_request', message: 'the request could not be parsed as HTTP' }];
}

/**
 * Answers what Node's HTTP parser refuses (oversized headers, garbage, a request that took longer
 * than --request-timeout-ms) in the envelope, then closes the socket: a client that stalled may
 * never close its side, and what its request held goes only with the socket.
 */
function answerClientError(requestTimeoutMs: number) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const [status, reason, envelope] = clientErrorAnswer(err, requestTimeoutMs);
    const body = JSON.stringify(envelope);
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
  };
}

/**
 * Node's timeouts start with a connection's first byte: one that never sends any is left open for
 * ever. Such a connection is closed after --idle-timeout-ms, as an idle kept-alive one is.
 */
function closeSilentConnections(server: Server, idleTimeoutMs: number): void {
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, idleTimeoutMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}

/**
 * Node's own timeouts, from the settings: the whole request (headers included) within
 * --request-timeout-ms, and an idle kept-alive connection closed after --idle-timeout-ms. Node
 * looks for late requests every connectionsCheckingInterval (30 s by default, longer than a short
 * timeout), so it looks every second, or sooner for a timeout under one.
 */
function timeouts(config: Config): Partial<FastifyServerOptions> {
  const { requestTimeoutMs, idleTimeoutMs } = config;
  return {
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: idleTimeoutMs,
    http: { headersTimeout: requestTimeoutMs, connectionsCheckingInterval: Math.min(1000, requestTimeoutMs) },
  } as Partial<FastifyServerOptions>;
}

/**
 * Headers are checked, never replaced by the schema's output: once a route replaces them, Fastify
 * answers every later read of request.headers with a fresh merge of the raw headers and the
 * replacement, which each hook of a keyed launch then paid (its profile).
 */
const checkingHeadersOnly: typeof validatorCompiler = (route) => {
  const validate = validatorCompiler(route);
  if (route.httpPart !== 'headers') return validate;
  return (data) => {
    const result = validate(data) as { error?: Error };
    return result.error ? result : true;
  };
};

/**
 * Fastify compiles every route's validators and serializers when the app starts; these build the
 * route's schema (openapi/lazy.ts) and compile it the first time a request needs it.
 */
const onFirstUse = <R extends { schema: unknown }, F extends (data: never) => unknown>(compile: (route: R) => F) => (route: R): F => {
  let compiled: F | undefined;
  return ((data: never) => (compiled ??= compile({ ...route, schema: built(route.schema) }))(data)) as F;
};

/** A body its route reads as a stream is the route's to check (streamedBody). */
const validating: typeof validatorCompiler = (route) =>
  route.httpPart === 'body' && isStreamedBody(route.schema) ? () => true : onFirstUse(checkingHeadersOnly)(route);

/**
 * zod validates and serialises every route. Given as the compiler factories rather than set after
 * construction, Fastify never loads ajv and fast-json-stringify only to replace them: about a
 * tenth of a cold start (bench/). Fastify's types describe ajv factories, hence the cast.
 */
const zodCompilers = {
  compilersFactory: { buildValidator: () => validating, buildSerializer: () => onFirstUse(serializerCompiler) },
} as unknown as FastifyServerOptions['schemaController'];

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
  const catalog = options.catalog ?? loadCatalog(config.catalog);
  const scenario = config.scenario === undefined ? undefined : loadScenario(config.scenario, catalog);
  const store = options.store ?? openStore(config.db, { lock: true, template: templateDatabase() });
  const app = Fastify({
    loggerInstance: (options.logger ?? createLogger(config.logLevel, process.stdout, config.logFormat)) as FastifyBaseLogger,
    // request-log.ts writes the one line per request; Fastify's own pair would double it.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestId,
    bodyLimit: BODY_LIMIT_BYTES,
    // Long enough that an absurd id reaches the routes' own checks (a 404) rather than the router.
    routerOptions: { maxParamLength: 2048 },
    // Bad percent-encoding and the like never reach hooks; answer them in the envelope too.
    frameworkErrors: (err, request, reply) => {
      reply.header('x-request-id', request.id);
      const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      sendApiError(reply, new ApiError(status, status === 414 ? 'uri_too_long' : 'invalid_request', err.message));
    },
    clientErrorHandler: answerClientError(config.requestTimeoutMs),
    ...timeouts(config),
    schemaController: zodCompilers,
  });
  closeSilentConnections(app.server, config.idleTimeoutMs);
  if (!options.store) app.addHook('onClose', async () => store.close());

  const services = createServices({ config, store, catalog, wallNow: options.wallNow });
  app.decorate('services', services);
  // Deliveries left pending (by a crash, say) go out once the server is ready; none is cut off by
  // the store closing.
  app.addHook('onReady', async () => services.webhooks.start(app.log));
  app.addHook('preClose', () => services.webhooks.stop());
  app.decorate('config', config);
  app.decorate('restoredWorkload', null as string | null);

  app.decorateRequest('rawBody', null);
  app.decorateRequest('replayed', false);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = body as string;
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  await app.register(errorHandler);
  await app.register(requestLog);
  await app.register(hosts);
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.url.length > URL_LIMIT_BYTES) {
      throw new ApiError(414, 'uri_too_long', `the URL is longer than ${URL_LIMIT_BYTES} bytes`);
    }
    done();
  });
  await app.register(apiHooks);
  await app.register(journal);

  if (options.describe) await describeRoutes(app);
  app.get('/openapi.json', { schema: { hide: true } }, (_request, reply) => {
    reply.type('application/json; charset=utf-8').send(committedDocument());
  });
  await app.register(docs, { document: () => JSON.parse(committedDocument()) });

  await app.register(healthRoutes);
  await app.register(v1Routes, { prefix: '/v1' });
  await app.register(mockRoutes, { prefix: '/_mock' });
  await app.register(uiRoutes, { prefix: '/_mock/ui' });

  await app.ready();
  try {
    for (const move of services.control.applyKeyMapping()) {
      app.log.warn(
        { key_id: move.keyId, from_tenant: move.from, to_tenant: move.to },
        'key moved to the tenant the configuration gives it; the data of its old tenant stays there, reachable again if the key is mapped back',
      );
    }
    if (scenario) {
      const tenants = services.control.applyScenario(scenario);
      app.log.info({ scenario: scenario.source, applied_to: tenants }, 'scenario applied');
    }
    // After the scenario: the snapshot is the state asked for, whatever the file gave that tenant.
    // Into the tenant of --restore-key, or of the printed key: the start-up link shows it.
    if (config.restore !== undefined) {
      const tenant = services.control.registerKey(printedKey(config));
      const rows = await services.snapshots.restoreFile(tenant.id, config.restore);
      app.restoredWorkload = (await services.workloads.list(tenant.id, { limit: 1 })).workloads[0]?.row.id ?? null;
      app.log.info({ snapshot: config.restore, tenant: tenant.id, rows }, 'snapshot restored');
    }
  } catch (err) {
    await app.close();
    throw err;
  }
  return app;
}
