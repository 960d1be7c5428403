import { createRequire } from 'node:module';
import Database from 'better-sqlite3';

let addonPath: string | undefined;

/**
 * A better-sqlite3 connection given its native addon's path (the `nativeBinding` option). Without
 * one, better-sqlite3 finds the addon through the `bindings` package, which tries a dozen folders
 * relative to the file that called it: about 2 ms of a start, and the wrong folders once that file
 * is the bundle, which holds better-sqlite3's JavaScript since it is compiled with the rest from
 * the code cache (scripts/bundle.mjs). Its install always builds the addon here.
 */
export function connect(path: string | Buffer, options: { readonly?: boolean } = {}): Database.Database {
  addonPath ??= createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
  return new Database(path, { ...options, nativeBinding: addonPath });
}
