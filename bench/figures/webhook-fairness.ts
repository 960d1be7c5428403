import { join } from 'node:path';
import { MAIN, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import { fairnessRound, p95 } from '../../test/helpers/webhook-fairness.js';
import { alternate, figure } from '../rounds.js';

const HANGING_TENANTS = 8;
const HEALTHY_RUNS = 8;
/** The target (36): the healthy tenant's p95 from due to received, absolute. */
const TARGET_P95_MS = 2000;

/**
 * Delivery fairness: a tenant with a healthy receiver on a realtime clock (8 runs, each taking
 * about a wall second, so 48 deliveries) while 8 tenants' receivers never answer and their fast
 * clocks keep a retry due for every slot they may take, at the default --webhook-timeout-ms. The
 * figure is the healthy tenant's p95 from a delivery's due time to its arrival, against the same
 * tenant's on the same server with no hanging tenant. The ratio is information; the target is
 * the p95 under TARGET_P95_MS.
 */
export async function webhookFairness(ctx: Context) {
  const mock = await startChild(MAIN, mockArgs(join(ctx.dir, 'webhook-fairness.db')));
  const open: number[] = [];
  try {
    const round = async (hangingTenants: number) => {
      const r = await fairnessRound(mock.url, { hangingTenants, hangingRuns: 4, healthyRuns: HEALTHY_RUNS, healthyRunSeconds: 1, deadlineMs: 60_000 });
      if (hangingTenants) open.push(r.hangingOpen);
      return p95(r.latenciesMs);
    };
    const hanging = () => round(HANGING_TENANTS);
    const alone = () => round(0);
    await alone();
    const r = await alternate(ctx.settings.rounds, { hanging, alone });
    const result = figure(
      {
        id: 'webhook-fairness',
        title: `a healthy tenant's webhook deliveries, due → received p95, while ${HANGING_TENANTS} tenants' receivers never answer, vs no hanging tenant (target under ${TARGET_P95_MS / 1000} s)`,
        unit: 'ms',
      },
      { label: `${HANGING_TENANTS} hanging tenants`, rounds: r.hanging },
      { label: 'no hanging tenant', rounds: r.alone },
      { healthy_deliveries_per_round: HEALTHY_RUNS * 6, hanging_attempts_open_at_end: open, p95_limit_ms: TARGET_P95_MS },
    );
    return [{ ...result, pass: result.subject.median < TARGET_P95_MS }];
  } finally {
    await mock.stop();
  }
}
