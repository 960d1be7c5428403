// npm run build: removes dist/, compiles with tsc, writes dist/index.d.ts and the test groups'
// runners, and bundles the server (clean.mjs, emit-types.mjs, group-runners.mjs, bundle.mjs),
// unless dist/ was built from exactly these sources by this Node: `npm ci` builds (prepare) and
// `npm test` builds again, and the second build of the same sources was most of a minute of each
// CI pass. The stamp is a digest of every file tsc and the bundle read (the tsconfig's folders,
// index.ts, the package and lock files) and of the Node version (the bundle's code cache is V8's),
// written last, so a failed build leaves none.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const INPUTS = ['server', 'routes', 'store', 'openapi', 'test', 'scripts', 'bench', 'index.ts', 'tsconfig.json', 'package.json', 'package-lock.json'];
const STAMP = join(root, 'dist', '.build-inputs');

function* files(path) {
  if (!statSync(join(root, path)).isDirectory()) {
    yield path;
    return;
  }
  for (const name of readdirSync(join(root, path)).sort()) yield* files(join(path, name));
}

const hash = createHash('sha256').update(`${process.version} ${process.arch}\0`);
for (const input of INPUTS) {
  for (const file of files(input)) hash.update(`${file}\0`).update(readFileSync(join(root, file))).update('\0');
}
const digest = hash.digest('hex');

let built;
try {
  built = readFileSync(STAMP, 'utf8');
} catch {
  built = undefined;
}
if (built === digest) {
  process.stdout.write('build: dist/ was built from these sources by this Node; nothing to do\n');
} else {
  const node = (...args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  try {
    node('scripts/clean.mjs');
    node('node_modules/typescript/bin/tsc', '-p', 'tsconfig.json');
    node('scripts/emit-types.mjs');
    node('scripts/group-runners.mjs');
    node('scripts/bundle.mjs');
  } catch (err) {
    // The step printed why; its exit status is the build's.
    process.exit(err.status ?? 1);
  }
  writeFileSync(STAMP, digest);
}
