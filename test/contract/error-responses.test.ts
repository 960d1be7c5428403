// A keyed route's error responses come from what it takes (server/http/error-responses.ts); the
// route lists only what its own rules answer.
import t from '../helpers/tap.js';
import { z } from 'zod';
import { errorStatusesTaken } from '../../server/http/error-responses.js';
import { generateOpenApi } from '../../scripts/openapi.js';

const Params = z.object({ id: z.string() });

t.test('the statuses follow from the method, the schemas and the body\'s media types', async (t) => {
  t.same(errorStatusesTaken({ method: 'GET', schema: {} }), [401], 'nothing to refuse but the key');
  t.same(errorStatusesTaken({ method: 'GET', schema: { querystring: Params } }), [401, 400]);
  t.same(errorStatusesTaken({ method: 'GET', schema: { params: Params } }), [401, 400, 404], 'a path id may name nothing');
  t.same(errorStatusesTaken({ method: 'DELETE', schema: {} }), [401, 400, 413, 415], 'a body is read whatever the schema says');
  t.same(errorStatusesTaken({ method: 'POST', schema: { body: Params } }), [401, 400, 413, 415]);
  const ndjson = { content: { 'application/json': { schema: Params }, 'text/plain': { schema: z.string() } } };
  t.same(errorStatusesTaken({ method: 'POST', schema: { body: ndjson } }), [401, 400, 413, 415]);
  const bytes = { content: { 'application/octet-stream': { schema: z.any() } } };
  t.same(errorStatusesTaken({ method: 'POST', schema: { body: bytes } }), [401, 400], 'raw bytes have a parser of their own');
});

t.test('every keyed operation of the document answers what it takes, and `default`', async (t) => {
  const doc = JSON.parse(await generateOpenApi());
  for (const [path, operations] of Object.entries<Record<string, { parameters?: { in: string }[]; responses: Record<string, unknown> }>>(doc.paths)) {
    if (!/^\/(v1|_mock)\//.test(path)) continue;
    for (const [method, operation] of Object.entries(operations)) {
      const codes = Object.keys(operation.responses);
      t.ok(codes.includes('401') && codes.includes('default'), `${method} ${path}: 401 and default`);
      if (operation.parameters?.some((p) => p.in === 'path')) t.ok(codes.includes('404'), `${method} ${path}: 404 for its path`);
      if (method !== 'get' && path !== '/v1/assets/upload') t.ok(codes.includes('413') && codes.includes('415'), `${method} ${path}: 413, 415`);
    }
  }
});
