import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MAX_IN_FLIGHT_PER_TENANT } from '../../server/domain/webhooks/delivery.js';
import { MAIN, benchScript, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import { advance, benchKey, launch, review } from '../mock-api.js';
import { call } from '../../test/helpers/server.js';
import { alternate, figure } from '../rounds.js';

/** Runs launched per round; each is six status changes, so six deliveries. */
const RUNS = 200;
const STATUSES = 6;

/**
 * Webhook deliveries per second: a tenant's runs all finish in one clock advance, which commits
 * RUNS × 6 deliveries; the time is from its answer to the receiver counting the last of them.
 * Each delivery is read from the outbox, signed, posted, and its attempt recorded in a
 * transaction, in order per workload, MAX_IN_FLIGHT_PER_TENANT at once. The baseline is a bare
 * loop in the bench process posting as many bodies of the same size, with the same headers, to
 * the same receiver (a process of its own), with as many in flight: what fetch itself costs.
 */
export async function webhooks(ctx: Context) {
  const mock = await startChild(MAIN, mockArgs(join(ctx.dir, 'webhooks.db'), '--clock', 'manual'));
  const receiver = await startChild(benchScript('servers/webhook-receiver.js'));
  let received = 0;
  const arrived = async (n: number) => {
    const res = await fetch(`${receiver.url}/wait?n=${n}`);
    received = Number(await res.text());
  };
  let sample: { body: string; headers: Record<string, string> } | undefined;
  try {
    const deliveries = async () => {
      const key = benchKey();
      const put = await call(mock.url, 'PUT', '/v1/webhooks', key, { body: { url: `${receiver.url}/hook` } });
      if (put.status !== 200) throw new Error(`PUT /v1/webhooks: ${put.status} ${put.text}`);
      const reviewed = await review(mock.url, key, { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'evaluate' });
      for (let i = 0; i < RUNS; i++) await launch(mock.url, key, reviewed, `webhooks-${i}`);
      const target = received + RUNS * STATUSES;
      await advance(mock.url, key, reviewed.secondsToFinish);
      const started = performance.now();
      await arrived(target);
      const seconds = (performance.now() - started) / 1000;
      if (!sample) {
        const [d] = (await call(mock.url, 'GET', '/_mock/webhooks/deliveries?limit=1', key)).body.deliveries;
        sample = { body: JSON.stringify(d.payload), headers: { 'webhook-id': d.id, 'webhook-timestamp': '0', 'webhook-signature': 'v1,' + 'A'.repeat(44) } };
      }
      return (RUNS * STATUSES) / seconds;
    };
    const bare = async () => {
      const { body, headers } = sample!;
      const target = received + RUNS * STATUSES;
      let left = RUNS * STATUSES;
      const started = performance.now();
      await Promise.all(Array.from({ length: MAX_IN_FLIGHT_PER_TENANT }, async () => {
        while (left-- > 0) {
          const res = await fetch(`${receiver.url}/hook`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
          await res.body?.cancel();
        }
      }));
      const seconds = (performance.now() - started) / 1000;
      await arrived(target);
      return (RUNS * STATUSES) / seconds;
    };
    // The first round is a warm-up of both (and gives the baseline its body).
    await deliveries();
    await bare();
    const r = await alternate(ctx.settings.rounds, { deliveries, bare });
    return [
      figure(
        { id: 'webhooks', title: `webhook deliveries: ${RUNS * STATUSES} status changes, committed at once, to a loopback receiver`, unit: 'deliveries/s' },
        { label: `mock: outbox → signed POST → attempt recorded, ${MAX_IN_FLIGHT_PER_TENANT} in flight`, rounds: r.deliveries },
        { label: `bare fetch POST loop, same bodies, ${MAX_IN_FLIGHT_PER_TENANT} in flight`, rounds: r.bare },
        { runs_per_round: RUNS, deliveries_per_round: RUNS * STATUSES, body_bytes: Buffer.byteLength(sample!.body) },
      ),
    ];
  } finally {
    await Promise.all([mock.stop(), receiver.stop()]);
  }
}
