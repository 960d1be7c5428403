// JSON nested deeper than the documented limit is a 400 invalid_json naming it, on every route
// that reads JSON: the walks after JSON.parse recurse once per level and overflowed the stack
// (a 500) at a few thousand levels.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from '../helpers/tap.js';
import { loadCatalog } from '../../server/domain/catalog/index.js';
import { loadScenario } from '../../server/domain/control/scenarios.js';
import { MAX_JSON_DEPTH } from '../../server/domain/json-text.js';
import { parseJsonBody } from '../../server/http/json-body.js';
import { startInProcess, tempDbPath } from '../helpers/server.js';

const nested = (levels: number, inner = '1') => `${'{"a":['.repeat(levels / 2)}${inner}${']}'.repeat(levels / 2)}`;
const DEEP = nested(10_000);

t.test('the limit is exact, and brackets inside strings do not count', async (t) => {
  t.equal(MAX_JSON_DEPTH, 64);
  t.ok(parseJsonBody(nested(64)), '64 levels are read');
  t.throws(() => parseJsonBody(`[${nested(64)}]`), { status: 400, code: 'invalid_json', message: /nested deeper than 64 levels/ });
  t.ok(parseJsonBody(nested(64, '"[[[[{{{{\\"[[[\\\\"')), 'brackets and escaped quotes inside a string are text');
  const wide = `[${Array.from({ length: 5000 }, () => nested(60)).join(',')}]`;
  t.ok(parseJsonBody(wide), 'many siblings are not depth');
  t.throws(() => parseJsonBody(`{"a": 1, "a": ${DEEP}}`), { code: 'invalid_json', message: /nested deeper/ }, 'checked before the duplicate-key walk');
});

t.test('every route that takes a JSON body answers 400 invalid_json for one nested 10,000 deep', async (t) => {
  const s = await startInProcess(t);
  const document = JSON.parse((await s.call('GET', '/openapi.json')).text) as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>> };
  let routes = 0;
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!operation.requestBody?.content['application/json']) continue;
      routes++;
      const path = template.replace(/\{[^}]+\}/g, 'x');
      const res = await s.call(method.toUpperCase(), path, { raw: DEEP, headers: { 'content-type': 'application/json', 'idempotency-key': `deep-${routes}` } });
      t.equal(res.status, 400, `${method} ${template}`);
      if (template === '/_mock/snapshot') {
        // The snapshot streams against the document's shape, which nests a few levels: a key or a
        // container it does not have is refused before anything inside it is read.
        t.match(res.body, { error: 'invalid_snapshot', message: 'body.a: unknown field' }, `${method} ${template}`);
        continue;
      }
      // The secrets routes answer the contract's other envelope, whose code is `code`.
      t.equal(res.body.error ?? res.body.code, 'invalid_json', `${method} ${template}: ${res.text.slice(0, 200)}`);
      t.match(res.body.message, /nested deeper than 64 levels/, 'the message names the limit');
    }
  }
  t.ok(routes >= 19, `${routes} JSON routes`);
  const del = await s.call('DELETE', '/v1/webhooks', { raw: DEEP, headers: { 'content-type': 'application/json' } });
  t.equal(del.body.error, 'invalid_json', 'a JSON body where none is expected is read the same way');

  const journal = await s.call('GET', '/_mock/requests?limit=1');
  t.equal(journal.status, 200, 'the journal still answers with such a body in it');
  t.equal(typeof journal.body.requests[0].body, 'string', 'shown as the text it was');
});

t.test('a scenario or catalog file nested too deep stops the start with a line naming the limit', async (t) => {
  const dir = join(tempDbPath(t), '..');
  const file = join(dir, 'deep.json');
  writeFileSync(file, `{"keys": {"nk_test_deep": {"levers": ${DEEP}}}}`);
  t.throws(() => loadScenario(file, loadCatalog()), { name: 'ScenarioError', message: /deep\.json: nested deeper than 64 levels/ });
  writeFileSync(file, `{"recipes": ${DEEP}}`);
  t.throws(() => loadCatalog(file), { name: 'CatalogError', message: /deep\.json: nested deeper than 64 levels/ });
});
