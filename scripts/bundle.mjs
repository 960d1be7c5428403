// Bundles what tsc emitted for the CLI (dist/server/main.js) and the Node API (dist/index.js)
// into dist/bundle/: two small entry files over one shared chunk. Resolving and compiling some 330
// files one by one (Fastify and its dependencies, zod, our own modules) was most of a cold start;
// one file costs a single read and compile. The tsc output stays the source of the bundle, so the
// code the tests import is the code that ships.
//
// esbuild: fast (well under a second here), a single dependency with no transitive ones, widely
// used and maintained, and it handles the CommonJS dependencies inside an ESM bundle.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

await build({
  absWorkingDir: root,
  entryPoints: { main: 'dist/server/main.js', index: 'dist/index.js' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // Loaded from node_modules at run time: better-sqlite3 finds its native addon, and
  // @fastify/swagger-ui the Swagger UI files, relative to their own folders; jsonc-parser's main
  // file is a UMD module whose requires esbuild cannot follow. All are direct dependencies, so
  // they resolve from an install as they do here.
  external: ['better-sqlite3', '@fastify/swagger-ui', 'jsonc-parser'],
  // The bundled CommonJS modules call require() for Node's built-ins and the externals.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
