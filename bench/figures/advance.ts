import { join } from 'node:path';
import { MAIN, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import { advance, benchKey, get, launch, review } from '../mock-api.js';
import { alternate, figure, median } from '../rounds.js';
import { storeAgain } from '../seed.js';

/** Running workloads of the advancing tenant, and how far it advances: the measure. */
const WORKLOADS = 1000;
const DAY_SECONDS = 24 * 3600;
/** A training run that is running this long after its launch, and ends within the day. */
const RUN = { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'train' };
const TO_RUNNING_SECONDS = 300;

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * A tenant of `WORKLOADS` running workloads, none yet read past the moment it reached running: one
 * run launched through the API, its row as launched stored again (storeAgain), then the clock
 * moved until they run.
 */
async function runningTenant(url: string, db: string): Promise<string> {
  const key = benchKey();
  const id = await launch(url, key, await review(url, key, RUN), 'advance-seed');
  storeAgain(db, id, WORKLOADS - 1);
  await advance(url, key, TO_RUNNING_SECONDS);
  const status = JSON.parse(await get(url, key, `/v1/workloads/${id}`)).status as string;
  if (status !== 'running') throw new Error(`advance: a seeded run is ${status} ${TO_RUNNING_SECONDS} s after launch, not running`);
  return key;
}

/** p99 of the samples, in ms. */
const p99 = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.max(0, Math.ceil(samples.length * 0.99) - 1)];

/**
 * `connections` loops each reading `path` back to back, each read timed, until `until` settles;
 * answers the read times.
 */
async function readsUntil(url: string, path: string, key: string, connections: number, until: Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  let done = false;
  void until.finally(() => (done = true));
  await Promise.all(Array.from({ length: connections }, async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(url + path, { headers: auth(key) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`advance: another tenant's read answered ${res.status}`);
      samples.push(performance.now() - started);
    }
  }));
  return samples;
}

/** One timed request of a seeded tenant's clock move; throws unless it answers 200. */
async function timedMove(url: string, key: string, body: object): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/_mock/clock/advance`, { method: 'POST', headers: { ...auth(key), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`advance: ${JSON.stringify(body)} answered ${res.status} ${text.slice(0, 300)}`);
  return performance.now() - started;
}

/**
 * Another tenant's GET /v1/workloads/{id} while one tenant advances 1,000 running workloads by a
 * day, by seconds and until idle (both write the runs in slices; until decides its move first),
 * against the same reads with no advance running, for as long as the last advance took; and the
 * two advances' own times.
 */
export async function advanceStall(ctx: Context): Promise<ReturnType<typeof figure>[]> {
  const db = join(ctx.dir, 'advance.db');
  const mock = await startChild(MAIN, mockArgs(db, '--clock', 'manual'));
  try {
    const tenants: string[] = [];
    // Each round takes a fresh tenant for each advance it times: three in the p99 rounds, two in the time rounds.
    for (let i = 0; i < 5 * ctx.settings.rounds; i++) tenants.push(await runningTenant(mock.url, db));
    ctx.log(`advance: seeded ${tenants.length} tenants of ${WORKLOADS} running workloads`);
    const other = benchKey();
    const otherRun = await launch(mock.url, other, await review(mock.url, other, RUN), 'other');
    const path = `/v1/workloads/${otherRun}`;
    const { connections } = ctx.settings;

    let windowMs = ctx.settings.seconds * 1000;
    const during = (body: object) => async () => {
      const move = timedMove(mock.url, tenants.pop()!, body);
      const samples = await readsUntil(mock.url, path, other, connections, move);
      windowMs = await move;
      return { p99Ms: p99(samples), maxMs: Math.max(...samples), reads: samples.length, advanceMs: windowMs };
    };
    const alone = async () => {
      const samples = await readsUntil(mock.url, path, other, connections, new Promise((resolve) => setTimeout(resolve, windowMs)));
      return { p99Ms: p99(samples), maxMs: Math.max(...samples), reads: samples.length, advanceMs: 0 };
    };
    const seconds = { seconds: DAY_SECONDS };
    const idle = { until: 'idle', max_seconds: DAY_SECONDS };
    const r = await alternate(ctx.settings.rounds, { seconds: during(seconds), idle: during(idle), alone });
    const times = await alternate(ctx.settings.rounds, {
      seconds: () => timedMove(mock.url, tenants.pop()!, seconds),
      idle: () => timedMove(mock.url, tenants.pop()!, idle),
    });

    const worstP99 = Math.max(median(r.seconds.map((x) => x.p99Ms)), median(r.idle.map((x) => x.p99Ms)));
    const met = worstP99 < 250;
    const detail = {
      workloads: WORKLOADS,
      advance_seconds: DAY_SECONDS,
      connections,
      p99_during_until_idle_ms: r.idle.map((x) => x.p99Ms),
      // A stall of a second or more shows here though the p99 of thousands of reads would hide it.
      longest_read_during_advance_ms: r.seconds.map((x) => x.maxMs),
      longest_read_during_until_idle_ms: r.idle.map((x) => x.maxMs),
      longest_read_alone_ms: r.alone.map((x) => x.maxMs),
      reads_during_advance: r.seconds.map((x) => x.reads),
      reads_during_until_idle: r.idle.map((x) => x.reads),
      reads_alone: r.alone.map((x) => x.reads),
      advance_ms_under_reads: r.seconds.map((x) => x.advanceMs),
      until_idle_ms_under_reads: r.idle.map((x) => x.advanceMs),
      under_250_ms: met,
    };
    return [
      figure(
        { id: 'advance-other-p99', title: `Another tenant's GET /v1/workloads/{id} while one tenant advances ${WORKLOADS.toLocaleString('en')} running workloads by a day: p99 latency (target under 250 ms, by seconds and until idle: ${met ? 'met' : 'missed'}; ${median(r.idle.map((x) => x.p99Ms)).toFixed(0)} ms during until idle)`, unit: 'ms' },
        { label: 'during {"seconds": 86400}', rounds: r.seconds.map((x) => x.p99Ms) },
        { label: 'no advance running', rounds: r.alone.map((x) => x.p99Ms) },
        detail,
      ),
      figure(
        { id: 'advance-time', title: `POST /_mock/clock/advance of ${WORKLOADS.toLocaleString('en')} running workloads by a day: until idle (deciding its move, then slices) vs by seconds (slices)`, unit: 'ms' },
        { label: '{"until": "idle"}', rounds: times.idle },
        { label: '{"seconds": 86400}', rounds: times.seconds },
        { workloads: WORKLOADS },
      ),
    ];
  } finally {
    await mock.stop();
  }
}
