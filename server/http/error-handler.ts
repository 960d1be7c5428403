import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import FindMyWay from 'find-my-way';
import { DomainError } from '../domain/errors.js';
import { ApiError } from './api-error.js';
import { describeValidation, type ValidationItem } from '../domain/validation.js';
import { sandboxErrorBody } from './sandbox-error.js';

const FASTIFY_CODES: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'payload_too_large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid_request'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json'],
  FST_ERR_BAD_URL: [400, 'invalid_request'],
  FST_ERR_ASYNC_CONSTRAINT: [400, 'invalid_request'],
};

function toApiError(err: FastifyError, request: FastifyRequest): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return ApiError.of(err);
  if (err.validation) {
    const { path, message } = describeValidation(err.validationContext ?? 'request', err.validation as ValidationItem[]);
    const codes = request.routeOptions.config.validationCodes ?? {};
    const code = Object.entries(codes).find(([prefix]) => path === prefix || path.startsWith(`${prefix}.`))?.[1];
    return new ApiError(400, code ?? 'invalid_request', message);
  }
  const known = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (known) return new ApiError(known[0], known[1], err.message);
  if (err instanceof SyntaxError && (err as { statusCode?: number }).statusCode === 400) {
    return new ApiError(400, 'invalid_json', `request body is not valid JSON: ${err.message}`);
  }
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError(err.statusCode, 'invalid_request', err.message);
  }
  return undefined;
}

export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  const body = reply.request.routeOptions.config?.sandboxErrors ? sandboxErrorBody(error, reply.request) : error.body();
  return reply.code(error.status).headers(error.headers).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/**
 * One error handler for everything: client mistakes become 4xx envelopes, anything else is a
 * logged 500 `internal` whose message never carries the stack. Unknown paths answer 404, or 405
 * with Allow when the path exists under another method (a second router mirrors the routes
 * because Fastify's own answers 404 for both).
 */
export default fp(async function errorHandler(app) {
  // The mirror is built on the first unknown path: filling a router at start took milliseconds of
  // every cold start, for an answer many runs never give.
  const routes: { method: 'GET'; url: string }[] = [];
  let router: ReturnType<typeof FindMyWay> | undefined;
  const mirror = () => {
    if (router) return router;
    router = FindMyWay();
    for (const { method, url } of routes) if (!router.hasRoute(method, url)) router.on(method, url, () => undefined);
    return router;
  };
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]) as HTTPMethods[];
    for (const method of methods.map((m) => m.toUpperCase() as 'GET')) {
      if ((method as string) !== 'HEAD') routes.push({ method, url: route.url });
    }
  });

  app.setErrorHandler((err: FastifyError, request, reply) => {
    const apiError = toApiError(err, request);
    if (apiError) {
      if (apiError.status === 401 || apiError.status >= 500) request.log.warn({ code: apiError.code }, apiError.message);
      return sendApiError(reply, apiError);
    }
    request.log.error({ err }, 'unhandled error');
    return sendApiError(reply, new ApiError(500, 'internal', `internal error (request id ${request.id})`));
  });

  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter(
      (m) => m !== request.method && mirror().find(m as 'GET', path),
    );
    if (allowed.length > 0) {
      return sendApiError(
        reply,
        new ApiError(405, 'method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`, {}, { allow: allowed.join(', ') }),
      );
    }
    return sendApiError(reply, new ApiError(404, 'not_found', `no route ${request.method} ${path}`));
  };
  app.setNotFoundHandler(notFound);
  // The /v1 and /_mock contexts answer their unknown paths with it too, after their own hooks.
  app.decorate('notFound', notFound);
});
