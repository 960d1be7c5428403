import { join } from 'node:path';
import { MAIN, benchScript, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import { untilReady } from '../mock-api.js';
import { alternate, figure } from '../rounds.js';

/** Milliseconds of one start, split where the server prints its `listening on` line. */
export interface Start {
  /** Spawn to the first 200 on /readyz. */
  ready: number;
  /** Spawn to the `listening on` line. */
  listening: number;
}

/** Starts `script`, waits for the first 200 on /readyz, then stops the server. */
export async function timeToReady(script: string, args: string[] = []): Promise<Start> {
  const started = performance.now();
  const child = await startChild(script, args);
  const listening = performance.now() - started;
  await untilReady(child.url);
  const ready = performance.now() - started;
  await child.stop();
  return { ready, listening };
}

export async function coldStart(ctx: Context) {
  let n = 0;
  const r = await alternate(ctx.settings.shortRounds, {
    mock: () => timeToReady(MAIN, mockArgs(join(ctx.dir, `cold-${n++}.db`))),
    plain: () => timeToReady(benchScript('servers/plain-http.js')),
  });
  return [
    figure(
      { id: 'cold-start', title: 'Cold start: spawn to first 200 on /readyz', unit: 'ms', target: { op: '<=', ratio: 1.5 } },
      { label: 'mock CLI, fresh database', rounds: r.mock.map((s) => s.ready) },
      { label: 'plain node:http server', rounds: r.plain.map((s) => s.ready) },
    ),
  ];
}
