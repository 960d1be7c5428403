import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../server/boot/package-info.js';

/** The CLI of the checkout at `root`, as `npm start` runs it: its package.json's bin. */
export const cliOf = (root: string) => join(root, JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin['nodus-mock']);
/** This checkout's CLI. */
export const MAIN = cliOf(packageRoot());
/** Baseline servers compiled next to this file. */
export const benchScript = (name: string) => join(packageRoot(), 'dist', 'bench', name);

export interface Child {
  url: string;
  pid: number;
  /** Resident set size of the child right now, from /proc (Linux). */
  rssBytes(): number;
  /** SIGTERM, then wait for the exit: the mock closes its database cleanly. */
  stop(): Promise<void>;
}

// Every child still running, so an error or Ctrl-C never leaves servers behind.
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => process.exit(130));
}

/**
 * Starts `node script ...args` and resolves once it prints `listening on <url>` (the mock's CLI
 * and the baseline servers print the same line). Servers run in their own processes so that the
 * load generator never shares their event loop or their core.
 */
export function startChild(script: string, args: string[] = [], env: Record<string, string> = {}): Promise<Child> {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    running.delete(child);
    resolve();
  }));
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening: ${out}${err}`)));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({
        url: m[1],
        pid: child.pid!,
        rssBytes: () => {
          const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (!kb) throw new Error(`no VmRSS for ${child.pid}`);
          return Number(kb[1]) * 1024;
        },
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
  });
}

/** Arguments for a mock server on its own file, quiet, on a free port of 127.0.0.1. */
export const mockArgs = (db: string, ...extra: string[]) => ['--port', '0', '--db', db, '--log-level', 'silent', ...extra];
