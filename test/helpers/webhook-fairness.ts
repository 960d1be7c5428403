import { randomBytes } from 'node:crypto';
import { call } from './server.js';
import { legCounting, secondsToFinish } from './rl.js';
import { startReceiver } from './webhook-receiver.js';

/**
 * The delivery-fairness scenario of issue 36, shared by its stress test and its bench figure:
 * tenants whose receivers never answer, and one tenant with a healthy receiver on a realtime
 * clock, whose every delivery is timed from the wall instant its virtual due time passed to the
 * instant its receiver got it. The hanging tenants' clocks run so fast that a failed attempt's
 * retry (a virtual minute on) is due at once: they always have deliveries due, and keep every
 * slot they may take busy until their timeout, again and again.
 */
export interface FairnessOptions {
  hangingTenants: number;
  /** Runs per hanging tenant: deliveries of different runs go side by side. */
  hangingRuns: number;
  healthyRuns: number;
  /** Wall seconds the healthy tenant's runs take from launch to completion (sets its clock's scale). */
  healthyRunSeconds: number;
  /** Wall milliseconds to wait for the healthy tenant's deliveries before giving up. */
  deadlineMs: number;
}

export interface FairnessResult {
  /** Due → received, wall ms, one per healthy delivery, in arrival order. */
  latenciesMs: number[];
  /** Attempts the hanging receivers held open when the healthy tenant's last delivery arrived. */
  hangingOpen: number;
}

const STATUSES = 6;
/** Virtual seconds per wall second of the hanging tenants' clocks: a minute is 0.6 wall ms. */
const HANGING_SCALE = 100_000;
const key = () => `nk_test_fair_${randomBytes(6).toString('hex')}`;

export const p95 = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))];

async function expect(url: string, k: string, method: string, path: string, status: number, body?: unknown) {
  const res = await call(url, method, path, k, body === undefined ? {} : { body });
  if (res.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}

async function launchRuns(url: string, k: string, runs: number): Promise<any> {
  const preview = await expect(url, k, 'POST', '/v1/rl-runs/preview', 200, legCounting());
  for (let i = 0; i < runs; i++) {
    const res = await call(url, 'POST', '/v1/rl-runs', k, {
      body: { ...preview.configuration, review_token: preview.review_token },
      headers: { 'idempotency-key': `fair-${i}` },
    });
    if (res.status !== 202) throw new Error(`launch: ${res.status} ${res.text.slice(0, 300)}`);
  }
  return preview;
}

/** `wait()` resolves once `arrived()` reaches `n`, looking again at every `poke()`. */
function counter(arrived: () => number, n: number, deadlineMs: number, what: string) {
  let check = () => undefined as void;
  return {
    poke: () => check(),
    wait: () => new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what}: ${arrived()} of ${n} after ${deadlineMs} ms`)), deadlineMs);
      check = () => {
        if (arrived() < n) return;
        clearTimeout(timer);
        resolve();
      };
      check();
    }),
  };
}

/** One round on the server at `url`; every receiver it starts is closed before it answers. */
export async function fairnessRound(url: string, o: FairnessOptions): Promise<FairnessResult> {
  const closers: (() => unknown)[] = [];
  const t = { teardown: (fn: () => unknown) => closers.push(fn) };
  const hangingKeys: string[] = [];
  try {
    let hangingOpen = 0;
    // Two attempts of each hanging tenant open at once: with eight, every slot today's main had.
    const busy = counter(() => hangingOpen, 2 * o.hangingTenants, o.deadlineMs, 'hanging receivers');
    for (let i = 0; i < o.hangingTenants; i++) {
      const receiver = await startReceiver(t);
      // Never answered: the attempt is open until the mock gives up on it at its timeout.
      receiver.answer = (_got, res) => {
        hangingOpen++;
        res.on('close', () => hangingOpen--);
        busy.poke();
      };
      const k = key();
      hangingKeys.push(k);
      await expect(url, k, 'PUT', '/_mock/clock', 200, { mode: 'realtime', scale: HANGING_SCALE });
      await expect(url, k, 'PUT', '/v1/webhooks', 200, { url: receiver.url });
      await launchRuns(url, k, o.hangingRuns);
      // Materialises the runs now rather than at the worker's next round.
      await expect(url, k, 'GET', '/v1/workloads', 200);
    }
    await busy.wait();

    const healthy = await startReceiver(t);
    /** By webhook-id: when it first arrived, and its virtual due time. */
    const arrived = new Map<string, { at: number; due: string }>();
    const expected = o.healthyRuns * STATUSES;
    const all = counter(() => arrived.size, expected, o.deadlineMs, 'healthy receiver');
    let openAtEnd = 0;
    healthy.answer = (got, res) => {
      if (!arrived.has(got.event.id)) arrived.set(got.event.id, { at: Date.now(), due: got.event.created_at });
      if (arrived.size === expected) openAtEnd = hangingOpen;
      res.statusCode = 204;
      res.end();
      all.poke();
    };
    const k = key();
    const preview = await expect(url, k, 'POST', '/v1/rl-runs/preview', 200, legCounting());
    const scale = secondsToFinish(preview) / o.healthyRunSeconds;
    const before = Date.now();
    const clock = await expect(url, k, 'PUT', '/_mock/clock', 200, { mode: 'realtime', scale });
    // The wall instant a virtual time passes, from one reading of the clock (error: its round trip).
    const wallAt = (virtual: string) => (before + Date.now()) / 2 + (Date.parse(virtual) - Date.parse(clock.now)) / scale;
    await expect(url, k, 'PUT', '/v1/webhooks', 200, { url: healthy.url });
    await launchRuns(url, k, o.healthyRuns);
    await all.wait();
    return {
      latenciesMs: [...arrived.values()].map(({ at, due }) => at - wallAt(due)),
      hangingOpen: openAtEnd,
    };
  } finally {
    // Nothing of this round is left due for the next: the webhooks go, and with them what was pending.
    await Promise.all(hangingKeys.map((k) => expect(url, k, 'DELETE', '/v1/webhooks', 200)));
    await Promise.all(closers.map((close) => close()));
  }
}
