import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import type * as Bundle from './bundle-entry.js';
import { packageRoot } from './package-info.js';

/**
 * The server ships as one CommonJS file, dist/bundle/server.cjs, with V8's code cache for it next
 * to it (both written by scripts/bundle.mjs). Compiling the 3 MB bundle and then each function
 * a start runs was about a quarter of a cold start. Node 20 has no compile cache for modules, but
 * a classic script compiled through node:vm takes a code cache; V8 refuses one made by another
 * Node version or with other flags, and the script is then compiled as usual.
 *
 * This stays the loader on Node 22 and 24 too, measured against what they add (spawn to the
 * first answer, Node 24): requiring the bundle under `module.enableCompileCache()` was about
 * 30 ms slower, because Node writes that cache right after compiling, without the functions a
 * start then compiles, where the build's cache is taken after a start and a request. The compile
 * cache for what is still loaded from node_modules (better-sqlite3's JavaScript) measured no
 * different from none. A startup snapshot (`--build-snapshot`) cannot be built from the server:
 * Fastify loads node:http, whose parser binding V8 cannot serialise, and using one would mean
 * starting a second process with `--snapshot-blob`.
 */
export const BUNDLE = join(packageRoot(), 'dist', 'bundle', 'server.cjs');
export const CODE_CACHE = `${BUNDLE}.cache`;

interface LoadedBundle {
  exports: typeof Bundle;
  /** The compiled script, whose `createCachedData()` the build writes as the code cache. */
  script: Script;
}

/** `paths` other than the shipped ones are for tests: a copy of the bundle, another cache. */
export function compileBundle(paths = { bundle: BUNDLE, cache: CODE_CACHE }): LoadedBundle {
  const { bundle } = paths;
  // latin1: esbuild writes code as ASCII (only comments keep other characters), and a one-byte
  // string is decoded several times faster and is half the size of the two-byte string that UTF-8
  // decoding makes of the whole bundle once one comment has an en dash. Node keeps a string read
  // this large outside V8's heap; compiled as read, it stays there (scripts/bundle.mjs: the file is
  // a script whose value is the module's body).
  const script = new Script(readFileSync(bundle, 'latin1'), { filename: bundle, cachedData: codeCache(bundle, paths.cache) });
  const module = { exports: {} as typeof Bundle };
  const body = script.runInThisContext() as (...args: unknown[]) => void;
  body(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return { exports: module.exports, script };
}

export const loadBundle = () => compileBundle().exports;

/** The build's code cache, unless the bundle was written after it. */
function codeCache(bundle: string, cache: string): Buffer | undefined {
  try {
    if (statSync(cache).mtimeMs >= statSync(bundle).mtimeMs) return readFileSync(cache);
  } catch {
    // No cache: compile as usual.
  }
  return undefined;
}
