// Bundles what tsc emitted into dist/bundle/, the code that ships (package.json bin and exports):
// - server.cjs: the server, the CLI and the Node API with their dependencies (server/boot/bundle-entry.ts);
// - server.cjs.cache: V8's code cache for it, written after a server has started, answered
//   /readyz and stopped through it, so that it holds the functions a start compiles
//   (server/boot/load-bundle.ts);
// - main.js: the CLI entry, which loads server.cjs with that cache;
// - template.db: the database a new database file starts as a copy of (store/db.ts);
// - checkpoint-worker.js: the thread that checkpoints the WAL (store/transactions.ts).
// Resolving and compiling some 330 files one by one (Fastify and its dependencies, zod, our
// modules) was most of a cold start; one file with a code cache is one read and little compiling.
// The tsc output stays the source of the bundle, so the code the tests import is the code that ships.
//
// esbuild: fast (well under a second here), a single dependency with no transitive ones, widely
// used and maintained, and it handles the CommonJS dependencies and the ESM sources alike.
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// Fastify's lib/server.js requires node:https and node:http2 when it loads, for the TLS and HTTP/2
// servers it builds only when asked; the mock serves plain HTTP/1.1. Loading them (TLS, OpenSSL's
// setup, the HTTP/2 binding) cost a CPU-bound start about 6 ms on Node 24, so the bundle gets a
// stand-in that loads the real module the first time anything of it is read. Listing its keys
// loads it too, so an ESM import (esbuild copies the keys) gets the real members, only sooner.
const LAZY_BUILTINS = /^node:(https|http2)$/;
const lazyStandIn = (id) => `let real;
const load = () => (real ??= require(${JSON.stringify(id)}));
module.exports = new Proxy({}, {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => {
    const d = Reflect.getOwnPropertyDescriptor(load(), key);
    return d && { ...d, configurable: true };
  },
});
`;
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: LAZY_BUILTINS, namespace: 'file' }, (args) => ({ path: args.path, namespace: 'lazy-builtin' }));
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({ contents: lazyStandIn(args.path), loader: 'js' }));
  },
};
// jsonc-parser's main file is a UMD module whose requires esbuild cannot follow, so it was loaded
// from node_modules at run time: five files resolved, read and compiled from source on every start
// (about 4 ms). Its ESM build bundles; the server imports the package's default export, the
// UMD module's exports object, which this stands for.
const jsoncParser = {
  name: 'jsonc-parser-esm',
  setup(b) {
    b.onResolve({ filter: /^jsonc-parser$/, namespace: 'file' }, () => ({ path: 'jsonc-parser', namespace: 'jsonc-esm' }));
    b.onLoad({ filter: /.*/, namespace: 'jsonc-esm' }, () => ({
      contents: "import * as jsonc from 'jsonc-parser/lib/esm/main.js';\nexport default jsonc;\n",
      resolveDir: root,
      loader: 'js',
    }));
  },
};
// zod's namespace exports every locale (64 files, 358 KiB, each evaluated at load), where the server
// speaks only English, the locale zod configures itself with. Its two `locales/index.js` are given
// English alone; `z.locales` is not used here.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (/[/]zod[/]v4[/](classic|core)$/.test(args.resolveDir) ? { path: 'zod-locales', namespace: 'zod-locales' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, () => ({ contents: "export { default as en } from 'zod/v4/locales/en.js';\n", resolveDir: root, loader: 'js' }));
  },
};
// `nodus-mock verify` is a bundle of its own, verify.cjs beside server.cjs, required only by that
// command (server/cli.ts): with ajv, which only it uses, 340 KiB that every start read.
const verifyApart = {
  name: 'verify-apart',
  setup(b) {
    b.onResolve({ filter: /^\.\/verify\/command\.js$/ }, (args) => (args.importer.endsWith('/dist/server/cli.js') ? { path: './verify.cjs', external: true } : undefined));
  },
};
// A CommonJS bundle has no import.meta: its URL is made from __filename, which Node gives it.
const importMetaUrl = 'var __importMetaUrl = require("node:url").pathToFileURL(__filename).href;';
const commonJs = { format: 'cjs', define: { 'import.meta.url': '__importMetaUrl' } };
const common = { absWorkingDir: root, bundle: true, platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning' };

await build({
  ...common,
  entryPoints: ['dist/server/boot/bundle-entry.js'],
  outfile: 'dist/bundle/server.cjs',
  // CommonJS, because only a classic script can take a code cache on Node 20.
  ...commonJs,
  // The default, stated because server/boot/load-bundle.ts reads the bundle as latin1.
  charset: 'ascii',
  // Loaded from node_modules at run time: @fastify/swagger-ui finds the Swagger UI files relative
  // to its own folder; @fastify/swagger only generates the document (`npm run openapi`) or serves
  // /docs. Both are direct dependencies, so they resolve from an install as they do here.
  // better-sqlite3's JavaScript is bundled (resolving and compiling its files from node_modules
  // was about 5 ms of a start); its native addon is loaded from its package (store/sqlite-addon.ts).
  // Fastify's ajv and fast-json-stringify compilers are required only when no compilers are given,
  // and the app gives zod's (server/app.ts): left out, with the ajv and fast-json-stringify code
  // that only they reach, 400 KiB that every start read (test/system/load-bundle.test.ts holds
  // that a start and its answers require neither).
  external: ['@fastify/swagger', '@fastify/swagger-ui', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'],
  plugins: [lazyBuiltins, jsoncParser, zodEnglishOnly, verifyApart],
  // import() of those becomes require(): a script compiled through node:vm has no module loader.
  supported: { 'dynamic-import': false },
  // The file is both a CommonJS module (package.json's main: Node's loader runs it in its wrapper,
  // where `module` is defined, and this calls the body at once) and a classic script whose value
  // is the body, for server/boot/load-bundle.ts to compile as read: wrapping it there made a 3 MB
  // copy of the source on V8's heap, where the file read is an external string off it.
  banner: {
    js: '(function (body) { if (typeof module === "object") body(exports, require, module, __filename, __dirname); return body; })(function (exports, require, module, __filename, __dirname) {\n' +
      importMetaUrl,
  },
  footer: { js: '});' },
});

await build({
  ...common,
  entryPoints: ['dist/server/verify/command.js'],
  outfile: 'dist/bundle/verify.cjs',
  ...commonJs,
  banner: { js: importMetaUrl },
});

// The WAL checkpointer's thread, loaded by server.cjs from beside it (store/transactions.ts).
await build({
  ...common,
  entryPoints: ['dist/store/checkpoint-worker.js'],
  outfile: 'dist/bundle/checkpoint-worker.js',
  format: 'esm',
  external: ['better-sqlite3'],
});

await build({
  ...common,
  entryPoints: ['dist/server/main.js'],
  outfile: 'dist/bundle/main.js',
  format: 'esm',
});

// A new database file starts as a copy of this one: the schema, no rows (store/db.ts).
const { writeTemplate } = await import('../dist/store/db.js');
const { templateDatabase } = await import('../dist/server/boot/package-info.js');
writeTemplate(templateDatabase());

// Imported only now: it reads the bundle just written.
const { CODE_CACHE, compileBundle } = await import('../dist/server/boot/load-bundle.js');
const { exports, script } = compileBundle();
// On a new database file, as `npm start` and the bench start: the lock, the template's copy and
// the checkpointer are compiled from the cache too.
const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-build-'));
const server = await exports.startMockServer({ db: join(dir, 'nodus-mock.db') });
// The request path too: a cold start is measured to its first answer.
await (await fetch(`${server.url}/readyz`)).text();
await server.close();
rmSync(dir, { recursive: true, force: true });
writeFileSync(CODE_CACHE, script.createCachedData());
