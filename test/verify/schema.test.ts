import t from '../helpers/tap.js';
import { SchemaChecker } from '../../server/verify/schema.js';

// A document in the shapes the walker must read: 3.0's `nullable`, 3.1's type lists, $ref to
// components, anyOf alternatives, maps, and loose objects.
const doc = {
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          note: { type: 'string', nullable: true },
          size: { type: ['integer', 'null'] },
          at: { type: 'string', format: 'date-time' },
          state: { anyOf: [{ type: 'string', enum: ['ready', 'failed'] }, { type: 'null' }] },
          kind: { oneOf: [{ const: 'a' }, { const: 'b' }] },
          tags: { type: 'object', additionalProperties: { type: 'integer' } },
          child: { anyOf: [{ $ref: '#/components/schemas/Child' }, { type: 'null' }] },
          never: false,
        },
        required: ['id'],
        additionalProperties: false,
      },
      Child: { type: 'object', properties: { n: { type: 'number', maximum: 10 } }, required: ['n'], additionalProperties: {} },
    },
  },
};
const checker = new SchemaChecker(doc);
const check = (value: unknown) => checker.check('/components/schemas/Thing', value).map((f) => `${f.kind} ${f.pointer}: ${f.message}`);

t.test('a value that fits, nulls of either style included, has no finding', async (t) => {
  t.same(check({ id: 'x', note: null, size: null, at: '2026-01-01T00:00:00Z', state: null, kind: 'a', tags: { a: 1 }, child: { n: 3 } }), []);
  t.same(check({ id: 'x', size: 4, state: 'ready', child: null }), []);
});

t.test('each kind of drift names the pointer of the value', async (t) => {
  t.same(check({ size: 'big' }), ['missing /id: missing', 'type /size: expected integer or null, got string']);
  t.same(check({ id: 1 }), ['type /id: expected string, got integer'], 'a wrong type at the top says nothing more of that value');
  t.same(check({ id: 'x', at: 'yesterday' }), ['format /at: not a date-time']);
  t.same(check({ id: 'x', state: 'paused' }), ['enum /state: "paused" is not one of "ready", "failed"'], 'a new word of an enum beside null');
  t.same(check({ id: 'x', kind: 'c' }), ['enum /kind: "c" is not one of "a", "b"'], 'a new word among consts');
  t.same(check({ id: 'x', kind: 3 }), ['type /kind: 3 matches none of the 2 forms the document allows']);
  t.same(check({ id: 'x', tags: { a: 'one' } }), ['type /tags/a: expected integer, got string'], 'a map checks its values');
  t.same(check({ id: 'x', child: { n: 11 } }), ['constraint /child/n: must be <= 10'], 'inside the branch of the right type');
  t.same(check({ id: 'x', child: {} }), ['missing /child/n: missing']);
  t.same(check({ id: 'x', never: 1 }), ['constraint /never: the document allows no value here']);
});

t.test('fields the document does not know are new, in closed and loose objects alike, never in maps', async (t) => {
  t.same(check({ id: 'x', region: 'eu', tags: { anything: 1 }, child: { n: 1, extra: true } }), [
    'new /region: a field the document does not know',
    'new /child/extra: a field the document does not know',
  ]);
});

t.test('a long string is described, never shown: it could be a token', async (t) => {
  t.same(check({ id: 'x', state: 'f'.repeat(64) }), ['enum /state: a string of 64 characters is not one of "ready", "failed"']);
});
