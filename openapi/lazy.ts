import { z } from 'zod';

/**
 * Wire schemas built on first use. Building every zod schema when the server started was about a
 * third of evaluating the bundle, and what it allocated pushed V8's first full collection onto the
 * first request (docs/performance.md, cold start); a request of one route needs only its own.
 *
 * `lazy(build)` stands for the schema `build()` makes, and builds it the first time anything of it
 * is read: Fastify and the route code take it as the schema itself. Fastify asks each route
 * schema's prototype when the route is added (a zod schema is not a plain object, so it is left
 * alone), and is told so without a build. Inside the wire modules a schema built from others names
 * them through `built()`, so that a built schema holds the others themselves, as the registry and
 * the JSON Schema generator know them, never a stand-in.
 */
const pending = new WeakMap<object, () => object>();
const builtOnes = new WeakSet<object>();

/** Prototype of a stand-in not built yet: not Object.prototype, so Fastify leaves it to the compilers. */
const NOT_BUILT = Object.freeze(Object.create(null) as object);

/**
 * What Fastify reads of every route schema when it adds the route: whether it is a fluent-schema
 * builder, and schemas given per media type. A zod schema has none of them (checked when built),
 * so they are answered without a build.
 */
const ASKED_BY_FASTIFY = new Set<string | symbol>(['content', 'isFluentSchema', Symbol.for('fluent-schema-object')]);

/**
 * Each registered id's rank in the order eager code would have registered it: the declaration
 * index of the stand-in whose build registered it, or, for an id registered outside any build,
 * just after the declarations made before it was seen.
 */
const idRanks = new Map<string, number>();
/** Weakly: a route's inline schemas go with the app that declared them (tests build hundreds). */
const everyStandIn: WeakRef<object>[] = [];
/** Set by buildEverySchema: stand-ins declared later are built at once. */
let eager = false;

function rankNewIds(rank: number): void {
  const ids = z.globalRegistry._idmap;
  if (ids.size === idRanks.size) return;
  for (const id of ids.keys()) if (!idRanks.has(id)) idRanks.set(id, rank);
}

export function lazy<T extends object>(build: () => T): T {
  const index = everyStandIn.length;
  rankNewIds(index - 0.5);
  let real: T | undefined;
  const get = (): T => {
    if (real !== undefined) return real;
    rankNewIds(everyStandIn.length - 0.5);
    real = build();
    for (const key of ASKED_BY_FASTIFY) if (key in real) throw new Error(`a lazy schema cannot have a member ${String(key)}`);
    // Schemas this one is built from were built first and ranked their own ids.
    rankNewIds(index);
    builtOnes.add(proxy);
    return real;
  };
  const proxy = new Proxy({}, {
    get: (_, key) => (real === undefined && ASKED_BY_FASTIFY.has(key) ? undefined : Reflect.get(get(), key)),
    set: (_, key, value) => Reflect.set(get(), key, value),
    has: (_, key) => Reflect.has(get(), key),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (_, key) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), key);
      return d && { ...d, configurable: true };
    },
    defineProperty: (_, key, d) => Reflect.defineProperty(get(), key, d),
    deleteProperty: (_, key) => Reflect.deleteProperty(get(), key),
    getPrototypeOf: () => (real === undefined ? NOT_BUILT : Reflect.getPrototypeOf(real)),
  }) as T;
  pending.set(proxy, get);
  everyStandIn.push(new WeakRef(proxy));
  if (eager) get();
  return proxy;
}

/** Whether `schema` is a stand-in whose schema is not built yet. */
export function isPending(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && pending.has(schema) && !builtOnes.has(schema);
}

/** The schema itself: `schema` built if it is a stand-in, else as given. */
export function built<T>(schema: T): T {
  const get = typeof schema === 'object' && schema !== null ? pending.get(schema) : undefined;
  return get ? (get() as T) : schema;
}

/**
 * Builds every schema not built yet, in declaration order, and puts the registry's ids back in the
 * order the declarations registered them: the OpenAPI document lists its components in that order
 * (`npm run openapi`), whichever schemas requests had built before. Stand-ins declared from now
 * on (a route's inline schemas) are built as they are declared, as the document needs them whole.
 */
export function buildEverySchema(): void {
  eager = true;
  for (const standIn of everyStandIn) built(standIn.deref());
  rankNewIds(everyStandIn.length);
  const ids = z.globalRegistry._idmap;
  const entries = [...ids].map((entry, i) => ({ entry, rank: idRanks.get(entry[0])!, i }));
  entries.sort((a, b) => a.rank - b.rank || a.i - b.i);
  ids.clear();
  for (const { entry } of entries) ids.set(...entry);
}

/**
 * A value derived from wire schemas (a key list, a writer, a predicate compiled from a shape),
 * made the first time it is asked for and kept: made when its module loads, it would build the
 * schemas it reads at every start, whether or not a request ever needs them.
 */
export function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
