import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAIN, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import { load } from '../load.js';
import { untilReady } from '../mock-api.js';
import { alternate, figure } from '../rounds.js';
import { PAGE } from '../seed.js';

/** Lets the last responses and timers drain before /proc is read. */
const SETTLE_MS = 500;

/**
 * Resident memory of a fresh server on an empty database, idle, against a fresh server on the
 * deep database after `memoryReads` pages read at random depths: storing and reading events must
 * not keep them in the process.
 */
export async function memory(ctx: Context) {
  const deep = await ctx.deep();
  let n = 0;
  const idle = async () => {
    const mock = await startChild(MAIN, mockArgs(join(ctx.dir, `idle-${n++}.db`)));
    await untilReady(mock.url);
    await sleep(SETTLE_MS);
    const rss = mock.rssBytes();
    await mock.stop();
    return rss;
  };
  const afterReads = async () => {
    const mock = await startChild(MAIN, mockArgs(deep.db));
    await load(mock.url, {
      path: '/',
      headers: { authorization: `Bearer ${deep.key}` },
      setupRequest: (request) => {
        const depth = Math.floor(Math.random() * (deep.rows - PAGE));
        request.path = `/v1/workloads/${deep.workloadId}/rl-events?limit=${PAGE}&after=${encodeURIComponent(deep.cursorAt(depth))}`;
        return request;
      },
    }, { amount: ctx.settings.memoryReads, connections: ctx.settings.connections });
    await sleep(SETTLE_MS);
    const rss = mock.rssBytes();
    await mock.stop();
    return rss;
  };
  const r = await alternate(ctx.settings.rounds, { afterReads, idle });
  const mb = (bytes: number[]) => bytes.map((b) => b / 2 ** 20);
  return [
    figure(
      { id: 'memory', title: `Server RSS with ${deep.rows.toLocaleString('en')} stored events after ${ctx.settings.memoryReads.toLocaleString('en')} page reads vs idle`, unit: 'MiB', target: { op: '<=', ratio: 1.5 } },
      { label: 'seeded, after reads', rounds: mb(r.afterReads) },
      { label: 'fresh, idle', rounds: mb(r.idle) },
      { rows: deep.rows, reads: ctx.settings.memoryReads },
    ),
  ];
}
