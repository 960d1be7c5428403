import type { Child } from '../children.js';
import type { Context } from '../context.js';
import { load, type LoadRequest, type LoadResult } from '../load.js';
import { figure, type Figure, type Target } from '../rounds.js';

/** One timed load run of `request` against a server, with the run's settings. */
export const measure = (ctx: Context, server: Child, request: LoadRequest) => () =>
  load(server.url, request, { seconds: ctx.settings.seconds, connections: ctx.settings.connections });

/** Untimed load before the first round, so JIT compilation and caches are not what is measured. */
export async function warmUp(ctx: Context, server: Child, request: LoadRequest): Promise<void> {
  if (ctx.settings.warmupSeconds > 0) {
    await load(server.url, request, { seconds: ctx.settings.warmupSeconds, connections: ctx.settings.connections });
  }
}

/** Throughput (with its target, if any) and p99 latency (for information) of one subject against one baseline. */
export function throughputFigures(
  id: string,
  title: string,
  target: Target | undefined,
  subject: { label: string; runs: LoadResult[] },
  baseline: { label: string; runs: LoadResult[] },
): Figure[] {
  const side = (s: typeof subject, pick: (r: LoadResult) => number) => ({ label: s.label, rounds: s.runs.map(pick) });
  const detail = { subject: subject.runs, baseline: baseline.runs };
  return [
    figure({ id, title, unit: 'req/s', target }, side(subject, (r) => r.rps), side(baseline, (r) => r.rps), detail),
    figure({ id: `${id}-p99`, title: `${title}: p99 latency`, unit: 'ms' }, side(subject, (r) => r.p99Ms), side(baseline, (r) => r.p99Ms)),
  ];
}
