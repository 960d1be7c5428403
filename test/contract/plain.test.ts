import t from '../helpers/tap.js';
import { z } from 'zod';
import { keysOf, plain } from '../../openapi/plain.js';
import { identityText } from '../../openapi/primitives.js';

// The quick check answers true only where the schema surely accepts the value unchanged; whatever
// it cannot read answers false, leaving the decision to the schema.

t.test('a rule the quick check cannot read answers false, never a guess', async (t) => {
  const id = identityText(16);
  t.ok(plain(id)('abc'), 'the registered predicate of the very schema');
  t.notOk(plain(id.min(5))('abc'), 'a schema derived from it has rules the predicate does not know');
  t.notOk(plain(z.string())('abc'), 'a string without a registered predicate');
  t.notOk(plain(z.number().gt(0))(1), 'an exclusive bound');
  t.notOk(plain(z.number().multipleOf(2))(2), 'another kind of numeric check');
  t.notOk(plain(z.strictObject({ a: z.literal(1) }).refine(() => true))({ a: 1 }), 'a check on the whole object');
  t.notOk(plain(z.union([z.strictObject({ a: z.literal(1) }), z.strictObject({ b: z.literal(2) })]))({ a: 1 }), 'a union without a discriminator');
  t.notOk(plain(z.discriminatedUnion('k', [z.strictObject({ k: z.enum(['x']) })]))({ k: 'x' }), 'a discriminator that is not a literal');
  t.notOk(plain(z.iso.datetime())('2026-01-01T00:00:00Z'), 'a string format');
});

t.test('numbers, literals and objects it reads', async (t) => {
  const n = plain(z.int().min(1).max(3));
  t.same([0, 1, 3, 4, 1.5, NaN, '2'].map(n), [false, true, true, false, false, false, false]);
  const f = plain(z.number());
  t.same([0.5, -1e300, Infinity, NaN].map(f), [true, true, false, false]);
  const o = plain(z.strictObject({ a: z.literal(1), b: z.enum(['x', 'y']).optional() }));
  t.same([{ a: 1 }, { a: 1, b: 'y' }, { a: 1, b: undefined }, { b: 'x' }, { a: 1, c: 1 }, [1], null, 'a'].map(o), [true, true, false, false, false, false, false, false]);
});

t.test('keysOf names every key of an object or of a union of them, and refuses anything else', async (t) => {
  t.same(keysOf(z.union([z.strictObject({ a: z.string(), b: z.string() }), z.strictObject({ b: z.string(), c: z.string() })])), ['a', 'b', 'c']);
  t.throws(() => keysOf(z.string()), /has no keys/);
});
