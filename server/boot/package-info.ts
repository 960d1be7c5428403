import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The folder holding nodus-mock's package.json, whether running from dist/ or an install. */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json of nodus-mock not found');
    dir = parent;
  }
  root = dir;
  return dir;
}

let parsed: { version: string; license: string } | undefined;

function manifest(): { version: string; license: string } {
  return (parsed ??= JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string; license: string });
}

export function packageVersion(): string {
  return manifest().version;
}

/** package.json's SPDX license expression. */
export function packageLicense(): string {
  return manifest().license;
}

/** The database a new database file starts as a copy of (store/db.ts), written by the build. */
export function templateDatabase(): string {
  return join(packageRoot(), 'dist', 'bundle', 'template.db');
}
