import { MAIN, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import type { LoadRequest } from '../load.js';
import { get } from '../mock-api.js';
import { alternate, figure } from '../rounds.js';
import { PAGE } from '../seed.js';
import { measure, warmUp } from './http.js';

/**
 * Keyset paging (a page is the rows after the cursor's seq): a page deep in a big workload must cost what the first page
 * costs. The same server, the same route and the same page size; only the cursor's depth differs.
 */
export async function rlEvents(ctx: Context) {
  const deep = await ctx.deep();
  const mock = await startChild(MAIN, mockArgs(deep.db));
  try {
    const page = (depth: number): LoadRequest => ({
      path: `/v1/workloads/${deep.workloadId}/rl-events?limit=${PAGE}&after=${encodeURIComponent(deep.cursorAt(depth))}`,
      headers: { authorization: `Bearer ${deep.key}` },
    });
    const shallow = page(0);
    const deepPage = page(deep.depth);
    for (const request of [shallow, deepPage]) {
      const body = JSON.parse(await get(mock.url, deep.key, request.path)) as { events: unknown[]; has_more: boolean };
      if (body.events.length !== PAGE || !body.has_more) throw new Error(`${request.path}: not a full page with more after it`);
      await warmUp(ctx, mock, request);
    }
    // The sides differ only in depth and the difference sought is small; seven full runs gave 0.86
    // to 1.26 with five 5-second rounds, the machine's load drifting between them. Three times
    // the rounds at a third of the length interleave the sides finely, for the same total time.
    const fine = { ...ctx, settings: { ...ctx.settings, seconds: Math.max(1, Math.round(ctx.settings.seconds / 3)) } };
    const r = await alternate(ctx.settings.shortRounds, { deep: measure(fine, mock, deepPage), shallow: measure(fine, mock, shallow) });
    const side = (label: string, runs: typeof r.deep, pick: (x: (typeof runs)[number]) => number) => ({ label, rounds: runs.map(pick) });
    const depth = deep.depth.toLocaleString('en');
    const detail = { rows: deep.rows, depth: deep.depth, deep: r.deep, shallow: r.shallow };
    return [
      figure(
        { id: 'rl-events-depth', title: `GET .../rl-events, page of ${PAGE}: cost at depth ${depth} vs 0 (mean latency)`, unit: 'ms', target: { op: '<=', ratio: 1.2 } },
        side(`after ${depth} rows`, r.deep, (x) => x.meanMs),
        side('first page', r.shallow, (x) => x.meanMs),
        detail,
      ),
      figure(
        { id: 'rl-events-depth-p99', title: `GET .../rl-events, page of ${PAGE}: p99 latency at depth ${depth} vs 0`, unit: 'ms' },
        side(`after ${depth} rows`, r.deep, (x) => x.p99Ms),
        side('first page', r.shallow, (x) => x.p99Ms),
      ),
      figure(
        { id: 'rl-events-rps', title: `GET .../rl-events, page of ${PAGE}: throughput at depth ${depth} vs 0`, unit: 'req/s' },
        side(`after ${depth} rows`, r.deep, (x) => x.rps),
        side('first page', r.shallow, (x) => x.rps),
      ),
    ];
  } finally {
    await mock.stop();
  }
}
