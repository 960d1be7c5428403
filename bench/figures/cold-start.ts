import { join } from 'node:path';
import { MAIN, benchScript, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import { untilReady } from '../mock-api.js';
import { alternate, figure } from '../rounds.js';

/** Milliseconds from spawn to the first 200 on /readyz; the server is stopped afterwards. */
async function timeToReady(script: string, args: string[] = []): Promise<number> {
  const started = performance.now();
  const child = await startChild(script, args);
  await untilReady(child.url);
  const ms = performance.now() - started;
  await child.stop();
  return ms;
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
      { label: 'mock CLI, fresh database', rounds: r.mock },
      { label: 'plain node:http server', rounds: r.plain },
    ),
  ];
}
