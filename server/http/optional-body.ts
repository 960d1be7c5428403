import type { preValidationHookHandler, RouteOptions } from 'fastify';
import { built, isPending } from '../../openapi/lazy.js';
import { OPTIONAL_BODY } from './openapi-document.js';

type Parsing = { safeParse?: (value: unknown) => { success: boolean } };

/** No body at all (no Content-Type, or JSON's Content-Type and nothing after it) is the same request as `{}`. */
const absentBodyIsEmpty: preValidationHookHandler = (request, _reply, done) => {
  request.body ??= {};
  done();
};

const prepend = (route: RouteOptions, hook: preValidationHookHandler) => {
  const hooks = route.preValidation;
  route.preValidation = [hook, ...(hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks])];
};

/**
 * An onRoute hook: a route whose body schema accepts `{}` (every field optional) also takes no
 * body, as `{}`, and the OpenAPI document marks that body optional. Decided from the schema itself,
 * so a route added later gets it without a line of its own; a schema that needs a field, or one
 * that is not zod (a body documented per content type), is left alone. A body schema not built yet
 * (openapi/lazy.ts) is asked on the first request that comes without a body; the document is
 * generated from built ones.
 */
export function emptyBodyWhereAllOptional(route: RouteOptions): void {
  const schema = route.schema as (Record<string, unknown> & { body?: Parsing }) | undefined;
  const body = schema?.body;
  if (isPending(body)) {
    let takesEmpty: boolean | undefined;
    prepend(route, (request, _reply, done) => {
      if (request.body == null && (takesEmpty ??= built(body)!.safeParse!({}).success)) request.body = {};
      done();
    });
    return;
  }
  if (typeof body?.safeParse !== 'function' || !body.safeParse({}).success) return;
  schema![OPTIONAL_BODY] = true;
  prepend(route, absentBodyIsEmpty);
}
