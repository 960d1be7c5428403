import { readdirSync } from 'node:fs';
import t from '../helpers/tap.js';
import { z } from 'zod';
import { ComputeGroupPage, ComputeQuery } from '../../openapi/compute.js';
import { buildEverySchema, built, isPending, lazy } from '../../openapi/lazy.js';
import { startServer } from '../helpers/server.js';

// One process per test file: nothing else here has built these schemas.

/** Every schema openapi/ exports that is built: a stand-in no longer pending, or one never lazy. */
async function builtExports(): Promise<string[]> {
  const folder = new URL('../../openapi/', import.meta.url);
  const names: string[] = [];
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.js')).sort()) {
    const module = (await import(new URL(file, folder).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (typeof value === 'object' && value !== null && !isPending(value) && value instanceof z.ZodType) names.push(`${file}:${name}`);
    }
  }
  return names;
}

t.test('a started server has built no wire schema; a request builds its own', async (t) => {
  const s = await startServer(t);
  // The one exception: the start reads its configuration, and `--clock` with the wire's own rule.
  t.same(await builtExports(), ['primitives.js:clockMode'], 'no schema openapi/ exports is built by the start but the clock mode (server/config.ts)');
  t.same([...z.globalRegistry._idmap.keys()], [], 'no component is registered: no schema with an id is built');
  t.ok(isPending(ComputeQuery), 'GET /v1/compute\'s query schema is not built by the start');
  t.ok(isPending(ComputeGroupPage), 'nor a response schema');
  const refused = await s.call('GET', '/v1/compute?limit=0');
  t.equal(refused.status, 400, 'the query is validated by its schema');
  t.equal(refused.body.error, 'invalid_limit', 'the refusal the route test of GET /v1/compute expects');
  t.notOk(isPending(ComputeQuery), 'the first request of the route built its query schema');
});

t.test('a stand-in is the schema it builds, and is built once', async (t) => {
  let builds = 0;
  const Pair = lazy(() => {
    builds++;
    return z.object({ a: z.string(), b: z.int().optional() });
  });
  t.equal(builds, 0, 'declaring builds nothing');
  t.equal(Object.getPrototypeOf(Pair) === Object.prototype, false, 'not a plain object to Fastify before the build');
  t.same(Pair.parse({ a: 'x' }), { a: 'x' });
  t.ok(Pair instanceof z.ZodObject);
  t.equal(built(Pair), built(Pair), 'one schema');
  t.equal(builds, 1);
  t.equal(z.prettifyError(Pair.safeParse({ a: 1 }).error!), z.prettifyError(built(Pair).safeParse({ a: 1 }).error!), 'the same refusal');
});

t.test('what is written, defined or deleted on a stand-in is done to the schema it builds', async (t) => {
  const Named = lazy(() => z.string());
  const real = built(Named) as unknown as Record<string, unknown>;
  const standIn = Named as unknown as Record<string, unknown>;
  standIn.note = 'set';
  t.equal(real.note, 'set', 'an assignment');
  Object.defineProperty(Named, 'defined', { value: 1, configurable: true, enumerable: true });
  t.equal(real.defined, 1, 'a definition');
  t.ok('defined' in Named && Object.keys(Named).includes('defined'), 'seen through the stand-in');
  delete standIn.note;
  t.notOk('note' in real, 'a deletion');
});

t.test('the registry lists ids in declaration order, whichever stand-in was built first', async (t) => {
  const First = lazy(() => z.object({ n: z.int() }).meta({ id: 'LazyOrderFirst' }));
  const Second = lazy(() => z.object({ first: built(First) }).meta({ id: 'LazyOrderSecond' }));
  const Third = lazy(() => z.string().meta({ id: 'LazyOrderThird' }));
  built(Third);
  built(Second);
  const ours = () => [...z.globalRegistry._idmap.keys()].filter((id) => id.startsWith('LazyOrder'));
  t.same(ours(), ['LazyOrderThird', 'LazyOrderFirst', 'LazyOrderSecond'], 'as built');
  buildEverySchema();
  t.same(ours(), ['LazyOrderFirst', 'LazyOrderSecond', 'LazyOrderThird'], 'as declared');
});
