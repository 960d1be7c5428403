import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchScript, MAIN, mockArgs, startChild, type Child } from '../children.js';
import type { Context } from '../context.js';
import { load } from '../load.js';
import { advance, benchKey, launch, review } from '../mock-api.js';
import { alternate, figure, median } from '../rounds.js';
import { storeAgain } from '../seed.js';

/** Workloads of the exported tenant: the size the issue asks GET and PUT to be measured at. */
const WORKLOADS = 1000;
/** Workloads of the baseline a fork copies into a fresh tenant (restored, the issue asks, in under 100 ms). */
const BASELINE_WORKLOADS = 100;

/** Peak resident memory of a child since the last reset, and the reset (Linux, /proc). */
const peakBytes = (child: Child) => Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) * 1024;
const resetPeak = (child: Child) => writeFileSync(`/proc/${child.pid}/clear_refs`, '5');

/**
 * A database whose one tenant holds `workloads` finished evaluation runs: one launched through the
 * API, the others its row stored again under new ids with the server stopped (the spec naming its
 * own, as a restore checks), then all run to their end by one clock move through the API (so
 * every row is the simulator's own).
 */
async function seed(ctx: Context, workloads: number): Promise<{ db: string; key: string }> {
  const db = join(ctx.dir, `snapshot-${workloads}.db`);
  const key = benchKey();
  let mock = await startChild(MAIN, mockArgs(db, '--clock', 'manual'));
  const reviewed = await review(mock.url, key, { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'evaluate' });
  const id = await launch(mock.url, key, reviewed, 'snapshot-seed');
  await mock.stop();
  storeAgain(db, id, workloads - 1);
  mock = await startChild(MAIN, mockArgs(db, '--clock', 'manual'));
  await advance(mock.url, key, reviewed.secondsToFinish);
  await mock.stop();
  ctx.log(`snapshot: seeded ${workloads} workloads`);
  return { db, key };
}

/** Time of one request and the server's peak RSS during it. */
async function timed(server: Child, request: () => Promise<Response>): Promise<{ ms: number; peakMiB: number }> {
  resetPeak(server);
  const started = performance.now();
  const res = await request();
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`snapshot: answered ${res.status}`);
  return { ms: performance.now() - started, peakMiB: peakBytes(server) / 2 ** 20 };
}

/**
 * GET and PUT of a 1,000-workload tenant's snapshot (time and the server's peak RSS) against a
 * plain Node server moving the same bytes (streaming the file out; reading the body whole in),
 * and another tenant's reads while exports run back to back against the same reads alone.
 */
export async function snapshot(ctx: Context): Promise<ReturnType<typeof figure>[]> {
  return [...await fork(ctx), ...await getAndPut(ctx)];
}

/**
 * A 100-workload baseline restored into a fresh tenant each round (a fork: every id made the
 * tenant's own), against the same document restored into the tenant it was taken from (ids kept).
 * The server keeps the last document it checked, so after the first round both send bytes it
 * knows, as a baseline forked into test after test does; the second figure is the fork of a
 * document it has not read (the baseline with another created_at each round) against that.
 */
async function fork(ctx: Context): Promise<ReturnType<typeof figure>[]> {
  const { db, key } = await seed(ctx, BASELINE_WORKLOADS);
  const mock = await startChild(MAIN, mockArgs(db, '--clock', 'manual'));
  try {
    const document = await (await fetch(`${mock.url}/_mock/snapshot`, { headers: { authorization: `Bearer ${key}` } })).text();
    let fresh = 0;
    const unread = () => document.replace(/"created_at":"[^"]*"/, `"created_at":"${new Date(Date.UTC(2026, 0, 1) + ++fresh * 1000).toISOString()}"`);
    const restore = (into: () => string, body: () => string = () => document) => async () => {
      const sent = body();
      const started = performance.now();
      const res = await fetch(`${mock.url}/_mock/snapshot`, {
        method: 'PUT', headers: { authorization: `Bearer ${into()}`, 'content-type': 'application/json' }, body: sent,
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`snapshot: a restore answered ${res.status}`);
      return performance.now() - started;
    };
    const first = restore(benchKey, unread);
    const r = await alternate(ctx.settings.shortRounds, {
      first: async () => {
        const ms = await first();
        // Untimed: the baseline read again, so that the other arms find it kept whatever their order.
        await restore(() => key)();
        return ms;
      },
      fork: restore(benchKey),
      own: restore(() => key),
    });
    const forkMs = median(r.fork);
    const detail = { workloads: BASELINE_WORKLOADS, document_bytes: Buffer.byteLength(document) };
    return [
      figure(
        { id: 'snapshot-fork', title: `PUT /_mock/snapshot of a ${BASELINE_WORKLOADS}-workload baseline into a fresh tenant (target under 100 ms: ${forkMs < 100 ? 'met' : 'missed'})`, unit: 'ms' },
        { label: 'into a fresh tenant (forked)', rounds: r.fork },
        { label: 'into its own tenant (ids kept)', rounds: r.own },
        { ...detail, under_100_ms: forkMs < 100 },
      ),
      figure(
        { id: 'snapshot-fork-unread', title: `PUT /_mock/snapshot of a ${BASELINE_WORKLOADS}-workload document the server has not read, into a fresh tenant, vs the baseline it keeps`, unit: 'ms' },
        { label: 'a document not read before (read and checked)', rounds: r.first },
        { label: 'the kept baseline (neither)', rounds: r.fork },
        detail,
      ),
    ];
  } finally {
    await mock.stop();
  }
}

async function getAndPut(ctx: Context): Promise<ReturnType<typeof figure>[]> {
  const { db, key } = await seed(ctx, WORKLOADS);
  const mock = await startChild(MAIN, mockArgs(db, '--clock', 'manual'));
  const auth = (k: string) => ({ authorization: `Bearer ${k}` });
  const document = await (await fetch(`${mock.url}/_mock/snapshot`, { headers: auth(key) })).text();
  const file = join(ctx.dir, 'snapshot.json');
  writeFileSync(file, document);
  const bytes = Buffer.byteLength(document);
  ctx.log(`snapshot: ${WORKLOADS} workloads, a document of ${(bytes / 2 ** 20).toFixed(1)} MiB`);
  const plain = await startChild(benchScript('servers/file-http.js'), [file]);
  try {
    const gets = await alternate(ctx.settings.rounds, {
      mock: () => timed(mock, () => fetch(`${mock.url}/_mock/snapshot`, { headers: auth(key) })),
      plain: () => timed(plain, () => fetch(plain.url)),
    });
    // Into the tenant it came from: ids another tenant of the server holds are refused.
    const put = (server: Child) => () => timed(server, () => fetch(`${server.url}/_mock/snapshot`, {
      method: 'PUT', headers: { ...auth(key), 'content-type': 'application/json' }, body: document,
    }));
    const puts = await alternate(ctx.settings.rounds, { mock: put(mock), plain: put(plain) });

    // Another tenant's workload read under load, with and without exports running back to back.
    const other = benchKey();
    const reviewed = await review(mock.url, other, { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'evaluate' });
    const workload = await launch(mock.url, other, reviewed, 'other');
    const reads = () => load(mock.url, { path: `/v1/workloads/${workload}`, headers: auth(other) }, { seconds: ctx.settings.seconds, connections: ctx.settings.connections });
    const exports = { running: false, done: 0 };
    const duringExports = async () => {
      exports.running = true;
      const loop = (async () => {
        while (exports.running) {
          await (await fetch(`${mock.url}/_mock/snapshot`, { headers: auth(key) })).arrayBuffer();
          exports.done++;
        }
      })();
      const result = await reads();
      exports.running = false;
      await loop;
      return result;
    };
    const p99 = await alternate(ctx.settings.rounds, { duringExports, alone: reads });

    const side = <T>(label: string, rounds: T[], pick: (r: T) => number) => ({ label, rounds: rounds.map(pick) });
    const detail = { workloads: WORKLOADS, document_bytes: bytes };
    return [
      figure({ id: 'snapshot-get', title: `GET /_mock/snapshot of ${WORKLOADS} workloads (${(bytes / 2 ** 20).toFixed(0)} MiB) vs a plain server streaming the file`, unit: 'ms' },
        side('mock, streamed', gets.mock, (r) => r.ms), side('node:http + file stream', gets.plain, (r) => r.ms), detail),
      figure({ id: 'snapshot-get-rss', title: `GET /_mock/snapshot of ${WORKLOADS} workloads: server peak RSS`, unit: 'MiB' },
        side('mock', gets.mock, (r) => r.peakMiB), side('node:http + file stream', gets.plain, (r) => r.peakMiB), detail),
      figure({ id: 'snapshot-put', title: `PUT /_mock/snapshot of ${WORKLOADS} workloads vs a plain server reading the body`, unit: 'ms' },
        side('mock, restored', puts.mock, (r) => r.ms), side('node:http, body read whole', puts.plain, (r) => r.ms), detail),
      figure({ id: 'snapshot-put-rss', title: `PUT /_mock/snapshot of ${WORKLOADS} workloads: server peak RSS`, unit: 'MiB' },
        side('mock', puts.mock, (r) => r.peakMiB), side('node:http, body read whole', puts.plain, (r) => r.peakMiB), detail),
      figure({ id: 'snapshot-other-p99', title: 'Another tenant\'s GET /v1/workloads/{id} while exports run back to back: p99 latency (target under 100 ms)', unit: 'ms' },
        side('during exports', p99.duringExports, (r) => r.p99Ms), side('alone', p99.alone, (r) => r.p99Ms), { exports: exports.done }),
    ];
  } finally {
    await plain.stop();
    await mock.stop();
  }
}
