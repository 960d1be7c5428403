import type { RouteOptions } from 'fastify';
import { ErrorBody } from '../../openapi/common.js';
import { SandboxError } from '../../openapi/secrets.js';

/** Fastify reads a body for these methods, whatever the route's schema says. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

type RouteSchema = {
  params?: unknown;
  querystring?: unknown;
  headers?: unknown;
  body?: { content?: Record<string, unknown> };
  response?: Record<string, unknown>;
};

/**
 * The error statuses a keyed route answers because of what it takes, before any rule of its own:
 * 401 from the key check; 400 when a path, query, header or body can fail its schema (and any body
 * can fail as JSON); 404 when its path names something by id or name; 413 and 415 when it reads a
 * body through a JSON parser (over the size limit, or in a content type it has no parser for). A
 * route whose body is only bytes of another media type reads it with a parser of its own.
 */
export function errorStatusesTaken(route: Pick<RouteOptions, 'method' | 'schema'>): number[] {
  const schema = (route.schema ?? {}) as RouteSchema;
  const readsBody = [route.method].flat().some((method) => BODY_METHODS.has(method));
  const content = schema.body?.content;
  const statuses = [401];
  if (readsBody || schema.params || schema.querystring || schema.headers || schema.body) statuses.push(400);
  if (schema.params) statuses.push(404);
  if (readsBody && (!content || 'application/json' in content)) statuses.push(413, 415);
  return statuses;
}

/**
 * An onRoute hook of the keyed contexts (/v1, /_mock): each route's declared responses get the
 * error statuses it takes (errorStatusesTaken) and `default` for the rest (a fault rule's status,
 * an over-long URL, an internal error), so a route lists only what its own rules answer (409, 402,
 * ...: openapi/common.ts's errorResponses). Every one is the envelope: SandboxError on a route that
 * answers in it (`sandboxErrors`), else the contract's.
 */
export function deriveErrorResponses(route: RouteOptions): void {
  const envelope = route.config?.sandboxErrors ? SandboxError : ErrorBody;
  const schema = (route.schema ?? {}) as RouteSchema;
  const taken = Object.fromEntries(errorStatusesTaken(route).map((status) => [status, envelope]));
  route.schema = { ...schema, response: { ...taken, ...schema.response, default: envelope } };
}
