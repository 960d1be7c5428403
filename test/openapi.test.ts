import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { packageRoot } from '../server/package-info.js';
import { generateOpenApi } from '../scripts/openapi.js';
import { startServer } from './helpers/server.js';
import { CONTRACT_PATH } from './helpers/contract.js';

t.test('the committed openapi/openapi.json is what the server serves', async (t) => {
  const s = await startServer(t);
  const served = await s.call('GET', '/openapi.json', { key: null });
  t.equal(served.status, 200);
  t.equal(served.body.openapi, '3.1.0');
  const committed = JSON.parse(readFileSync(join(packageRoot(), 'openapi', 'openapi.json'), 'utf8'));
  t.same(served.body, committed, 'run `npm run openapi` after changing a schema or route');
  t.equal(await generateOpenApi(), `${JSON.stringify(served.body, null, 2)}\n`);
});

t.test('Swagger UI is served at /docs without a key', async (t) => {
  const s = await startServer(t);
  const res = await s.call('GET', '/docs', { key: null });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/html/);
});

t.test('every /_mock route is tagged mock, every route has a summary or operationId', async (t) => {
  const s = await startServer(t);
  const doc = (await s.call('GET', '/openapi.json', { key: null })).body;
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      if (path.startsWith('/_mock')) t.same(op.tags, ['mock'], `${method} ${path}`);
      t.ok(op.summary || op.operationId, `${method} ${path} is described`);
    }
  }
});

const shared = join(packageRoot(), '..', 'shared', 'contract', 'openapi-rl-subset.json');
t.test('the vendored contract matches ../shared when that copy exists', { skip: !existsSync(shared) && 'no ../shared/contract here' }, async (t) => {
  t.equal(readFileSync(CONTRACT_PATH, 'utf8'), readFileSync(shared, 'utf8'));
});
