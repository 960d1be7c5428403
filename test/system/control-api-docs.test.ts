// docs/control-api.md is the reference of the /_mock routes: it must name every one the server
// serves, and nothing it does not, or the page falls behind the code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { startServer } from '../helpers/server.js';

const read = (path: string) => readFileSync(join(packageRoot(), path), 'utf8');
const page = read('docs/control-api.md');
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** `GET /_mock/clock` for every operation the committed OpenAPI document has under /_mock. */
const served = Object.entries(JSON.parse(read('openapi/openapi.json')).paths as Record<string, Record<string, unknown>>)
  .filter(([path]) => path.startsWith('/_mock/'))
  .flatMap(([path, operations]) => Object.keys(operations).filter((m) => METHODS.includes(m)).map((m) => `${m.toUpperCase()} ${path}`));

/** The first cell of each row of the page's route table. */
const routesSection = page.split('\n## The routes\n')[1]?.split('\n## ')[0] ?? '';
const documented = [...routesSection.matchAll(/^\| `([A-Z]+ \/_mock\/[^`]*)` \|/gm)].map((m) => m[1]);

t.test('every /_mock operation of the OpenAPI document has its row in docs/control-api.md', async (t) => {
  t.ok(served.length >= 20, `${served.length} operations`);
  t.same(served.filter((route) => !documented.includes(route)), [], 'no route missing from the table');
});

t.test('every row of the table is a route the server answers', async (t) => {
  t.same(documented.filter((route, i) => documented.indexOf(route) !== i), [], 'no route twice');
  // The inspector's page is left out of the OpenAPI document: it is not an API.
  const undescribed = documented.filter((route) => !served.includes(route));
  t.same(undescribed, ['GET /_mock/ui/'], 'only the inspector is outside the OpenAPI document');
  const s = await startServer(t);
  for (const route of undescribed) {
    const [method, path] = route.split(' ');
    t.equal((await s.call(method, path, { key: null })).status, 200, route);
  }
});
