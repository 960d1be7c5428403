import type { RouteOptions } from 'fastify';
import { OPTIONAL_BODY } from './openapi-document.js';
import { syncHook } from './sync-hook.js';

type Parsing = { safeParse?: (value: unknown) => { success: boolean } };

/** No body at all (no Content-Type, or JSON's Content-Type and nothing after it) is the same request as `{}`. */
const absentBodyIsEmpty = syncHook((request) => {
  request.body ??= {};
});

/**
 * An onRoute hook: a route whose body schema accepts `{}` (every field optional) also takes no
 * body, as `{}`, and the OpenAPI document marks that body optional. Decided from the schema itself,
 * so a route added later gets it without a line of its own; a schema that needs a field, or one
 * that is not zod (a body documented per content type), is left alone.
 */
export function emptyBodyWhereAllOptional(route: RouteOptions): void {
  const schema = route.schema as (Record<string, unknown> & { body?: Parsing }) | undefined;
  if (typeof schema?.body?.safeParse !== 'function' || !schema.body.safeParse({}).success) return;
  schema[OPTIONAL_BODY] = true;
  const hooks = route.preValidation;
  route.preValidation = [absentBodyIsEmpty, ...(hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks])];
}
