import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import t from '../helpers/tap.js';
import { z } from 'zod';
import { packageRoot } from '../../server/boot/package-info.js';
import { generateOpenApi } from '../../scripts/openapi.js';
import { COMPONENT_ALIASES } from '../../openapi/workload-payload.js';
import { describeRoutes, RESPONSE_HEADERS } from '../../server/http/openapi-document.js';
import { startInProcess } from '../helpers/server.js';
import { CONTRACT_PATH } from '../helpers/contract.js';

t.test('the server serves the committed openapi/openapi.json, which is what the schemas generate', async (t) => {
  const s = await startInProcess(t);
  const served = await s.call('GET', '/openapi.json', { key: null });
  t.equal(served.status, 200);
  t.equal(served.body.openapi, '3.1.0');
  const committed = JSON.parse(readFileSync(join(packageRoot(), 'openapi', 'openapi.json'), 'utf8'));
  t.same(served.body, committed);
  t.equal(await generateOpenApi(), `${JSON.stringify(served.body, null, 2)}\n`, 'run `npm run openapi` after changing a schema or route');
});

t.test('Swagger UI is served at /docs without a key', async (t) => {
  const s = await startInProcess(t);
  const res = await s.call('GET', '/docs', { key: null });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/html/);
  t.ok(res.headers.get('x-request-id'), 'answered through the app like any route');

  // What the page loads: its script and the document it renders.
  const assets = [...res.text.matchAll(/(?:src|href)="(\/docs\/static\/[^"]+)"/g)].map((m) => m[1]);
  t.ok(assets.length >= 3);
  for (const asset of assets) t.equal((await s.call('GET', asset, { key: null })).status, 200, asset);
  const script = await s.call('GET', '/docs/static/swagger-ui-bundle.js', { key: null });
  t.match(script.headers.get('content-type'), /javascript/);
  const initializer = await s.call('GET', '/docs/static/swagger-initializer.js', { key: null });
  t.match(initializer.text, /resolveUrl\('\.\/json'\)/);
  const document = await s.call('GET', '/docs/json', { key: null });
  t.same(document.body, (await s.call('GET', '/openapi.json', { key: null })).body, '/docs renders the document /openapi.json serves');

  const head = await s.call('HEAD', '/docs/static/swagger-ui.css', { key: null });
  t.equal(head.status, 200);
  t.equal(head.text, '');
  const missing = await s.call('GET', '/docs/static/nope.js', { key: null });
  t.equal(missing.status, 404);
  t.equal(missing.body.error, 'not_found', 'a missing asset is a 404 in the envelope');
});

t.test('every /_mock route is tagged mock, every route has a summary or operationId', async (t) => {
  const s = await startInProcess(t);
  const doc = (await s.call('GET', '/openapi.json', { key: null })).body;
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      if (path.startsWith('/_mock')) t.same(op.tags, ['mock'], `${method} ${path}`);
      t.ok(op.summary || op.operationId, `${method} ${path} is described`);
    }
  }
});

t.test('the contract\'s operations keep its operationId and the errors it documents; every error is the envelope (SandboxError on the secrets routes)', async (t) => {
  const s = await startInProcess(t);
  const doc = (await s.call('GET', '/openapi.json', { key: null })).body;
  const contract = JSON.parse(readFileSync(CONTRACT_PATH, 'utf8'));
  for (const [path, ops] of Object.entries<Record<string, any>>(contract.paths)) {
    for (const [method, op] of Object.entries<any>(ops).filter(([key]) => ['get', 'post', 'put', 'patch', 'delete'].includes(key))) {
      const ours = doc.paths[path]?.[method];
      t.equal(ours?.operationId, op.operationId, `${method} ${path}`);
      const errors = Object.keys(op.responses).filter((status) => /^[45]/.test(status));
      t.same(errors.filter((status) => !ours?.responses[status]), [], `${method} ${path} documents the contract's ${errors.join(', ')}`);
    }
  }
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      if (path.startsWith('/v1/') || path.startsWith('/_mock/')) t.ok(op.responses['401'], `${method} ${path}: the key check's 401`);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (!/^([45]|default)/.test(status)) continue;
        // The contract gives the secrets routes SandboxError; every other route has Error.
        const envelope = path.startsWith('/v1/secrets') ? 'SandboxError' : 'Error';
        t.same(response.content, { 'application/json': { schema: { $ref: `#/components/schemas/${envelope}` } } }, `${method} ${path} ${status}`);
        t.not(response.description, 'Default Response', `${method} ${path} ${status} says what it means`);
      }
    }
  }
});

t.test('components keep their names: the contract\'s, /_mock ones (Mock…), and <name>Input for a schema also read differently', async (t) => {
  const s = await startInProcess(t);
  const doc = (await s.call('GET', '/openapi.json', { key: null })).body;
  const contract = JSON.parse(readFileSync(CONTRACT_PATH, 'utf8'));
  // Registered under their own ids: the contract's WorkloadInput (workloads.ts says why) and GET /v1/me's body.
  const own = new Set([...Object.keys(contract.components.schemas), ...Object.keys(COMPONENT_ALIASES), 'Identity']);
  t.same(Object.keys(doc.components.schemas).filter((name) => !name.startsWith('Mock') && !own.has(name) && !own.has(name.replace(/Input$/, ''))), []);
  // A body schema only ever read is emitted once, under its plain name.
  t.same(doc.paths['/v1/rl-runs'].post.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/RLRunRequest' });
  t.ok(doc.components.schemas.BucketInput, 'an id ending in Input keeps it');
});

t.test('the generator refuses a header it cannot spell, or headers for a status the route does not answer', async (t) => {
  const documentOf = async (schema: Record<string, unknown>) => {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    t.teardown(() => app.close());
    await describeRoutes(app);
    app.get('/thing', { schema: { operationId: 'getThing', response: { 200: z.object({ ok: z.boolean() }) }, ...schema } }, async () => ({ ok: true }));
    await app.ready();
    return () => app.swagger();
  };
  const spelled = await documentOf({ headers: z.object({ 'idempotency-key': z.string() }), [RESPONSE_HEADERS]: { 200: z.object({ etag: z.string() }) } });
  const operation = (spelled() as any).paths['/thing'].get;
  t.same(operation.parameters.map((p: any) => p.name), ['Idempotency-Key']);
  t.same(operation.responses['200'].headers, { ETag: { required: true, schema: { type: 'string' } } }, 'a required response header says so');
  t.throws(await documentOf({ headers: z.object({ 'x-trace': z.string() }) }), /getThing: header x-trace is not in HEADER_NAMES/);
  t.throws(await documentOf({ [RESPONSE_HEADERS]: { 201: z.object({ etag: z.string() }) } }), /getThing: headers declared for 201, which it does not answer/);
});

const shared = join(packageRoot(), '..', 'shared', 'contract', 'openapi-rl-subset.json');
t.test('the vendored contract matches ../shared when that copy exists', { skip: !existsSync(shared) && 'no ../shared/contract here' }, async (t) => {
  t.equal(readFileSync(CONTRACT_PATH, 'utf8'), readFileSync(shared, 'utf8'));
});
