import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';
import { startServer, tempDbPath } from '../helpers/server.js';

const ui = (name: string) => readFileSync(join(packageRoot(), 'ui', name), 'utf8');

/** Sends the path exactly as given: fetch() would resolve `..` segments before they left. */
function rawGet(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/`, { path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('the page is served without a key, and /_mock/ui is sent to /_mock/ui/', async (t) => {
  const s = await startServer(t);
  const bare = await fetch(`${s.url}/_mock/ui`, { redirect: 'manual' });
  t.equal(bare.status, 308);
  t.equal(bare.headers.get('location'), '/_mock/ui/');

  const page = await s.call('GET', '/_mock/ui/', { key: null });
  t.equal(page.status, 200);
  t.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  t.equal(page.text, ui('index.html'));
  t.equal(page.headers.get('cache-control'), 'no-cache');
  t.equal(page.headers.get('x-content-type-options'), 'nosniff');
  t.match(page.headers.get('content-security-policy'), /default-src 'self'.*frame-ancestors 'none'/);

  // The rest of /_mock still wants the key.
  t.equal((await s.call('GET', '/_mock/clock', { key: null })).status, 401);
});

t.test('every file the page loads is served with its media type', async (t) => {
  const s = await startServer(t);
  // What index.html links and what each module imports, found in the files themselves, so a new
  // module that is not on the allow-list fails here rather than in a browser.
  const wanted = new Set<string>();
  const queue = [...ui('index.html').matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => m[1]);
  while (queue.length) {
    const name = queue.shift()!;
    if (wanted.has(name)) continue;
    wanted.add(name);
    if (name.endsWith('.js')) queue.push(...[...ui(name).matchAll(/from '\.\/([^']+)'/g)].map((m) => m[1]));
  }
  t.ok(wanted.has('app.js') && wanted.has('style.css') && wanted.size >= 5, [...wanted].join(', '));
  const types: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };
  for (const name of wanted) {
    const res = await s.call('GET', `/_mock/ui/${name}`, { key: null });
    t.equal(res.status, 200, name);
    t.equal(res.headers.get('content-type'), types[name.split('.').pop()!], `${name} media type`);
    t.equal(res.text, ui(name), `${name} as in the package`);
  }
});

t.test('an unchanged file revalidates as 304 by its ETag', async (t) => {
  const s = await startServer(t);
  const first = await fetch(`${s.url}/_mock/ui/app.js`);
  const etag = first.headers.get('etag');
  t.match(etag, /^"[A-Za-z0-9_-]{27}"$/);
  const again = await fetch(`${s.url}/_mock/ui/app.js`, { headers: { 'if-none-match': etag! } });
  t.equal(again.status, 304);
  t.equal(await again.text(), '');
  const other = await fetch(`${s.url}/_mock/ui/app.js`, { headers: { 'if-none-match': '"something-else"' } });
  t.equal(other.status, 200);
});

t.test('anything but the listed files is a 404 in the envelope: no path reaches the disk', async (t) => {
  const s = await startServer(t);
  for (const path of [
    '/_mock/ui/missing.js', '/_mock/ui/ui.ts', '/_mock/ui/app.js.map', '/_mock/ui/__proto__', '/_mock/ui/constructor',
    '/_mock/ui/toString', '/_mock/ui/..%2fpackage.json', '/_mock/ui/%2e%2e%2f%2e%2e%2fpackage.json', '/_mock/ui/../package.json',
    '/_mock/ui/../../package.json', '/_mock/ui/sub/app.js', '/_mock/ui/.%2fapp.js', '/_mock/ui/app.js%00',
  ]) {
    const res = await rawGet(s.url, path);
    t.equal(res.status, 404, path);
    const body = JSON.parse(res.body);
    t.same(Object.keys(body).sort(), ['error', 'message'], `${path}: the envelope`);
    t.equal(body.error, 'not_found', path);
  }
  const post = await s.call('POST', '/_mock/ui/app.js', { key: null, body: {} });
  t.equal(post.status, 405);
  t.equal(post.headers.get('allow'), 'GET');
});

t.test('the bundle that ships finds ui/ from wherever it is started', async (t) => {
  const cwd = join(tempDbPath(t), '..');
  const bundle = join(packageRoot(), 'dist', 'bundle', 'server.cjs');
  const script = `
    const { startMockServer } = require(${JSON.stringify(bundle)});
    (async () => {
      const mock = await startMockServer();
      const res = await fetch(mock.url + '/_mock/ui/app.js');
      console.log(JSON.stringify({ status: res.status, type: res.headers.get('content-type'), length: (await res.text()).length }));
      await mock.close();
    })().catch((err) => { console.error(err); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd, encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.same(JSON.parse(r.stdout), { status: 200, type: 'text/javascript; charset=utf-8', length: ui('app.js').length });
});
