import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../server/boot/package-info.js';

/** The CLI as installed: package.json's bin, the bundle that `npm start` and the image run. */
export const MAIN = join(packageRoot(), JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).bin['nodus-mock']);

/** Starts the real CLI as a child process; `ready` resolves with the base URL it printed. */
export function startCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const ready = new Promise<{ url: string; out: () => string }>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m && out.includes('NODUS_API_KEY=')) resolve({ url: m[1], out: () => out });
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}${err}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, ready, exited };
}
