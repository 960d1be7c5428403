import { join } from 'node:path';
import { MAIN, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import { benchKey, launch, review } from '../mock-api.js';
import { alternate, figure, median } from '../rounds.js';
import { storeAgain } from '../seed.js';

/** Unsettled workloads of the tenant: the size launches/admission.ts's comment speaks of. */
const WORKLOADS = 1000;
/** Launches timed per arm and round; the arm's figure for the round is their median. */
const LAUNCHES = 20;

/**
 * A keyed launch of a tenant with a budget, whose headroom brings every unsettled workload up to
 * now first (launches/admission.ts says why it must), against the same tenant's launch without a
 * budget. The clock stands still, so after the first launch nothing falls due: what is left is
 * reading each workload's row and its timeline, the cost the comment there measures.
 */
export async function budget(ctx: Context): Promise<ReturnType<typeof figure>[]> {
  const db = join(ctx.dir, 'budget.db');
  const key = benchKey();
  const configuration = { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'evaluate' };
  let mock = await startChild(MAIN, mockArgs(db, '--clock', 'manual'));
  const id = await launch(mock.url, key, await review(mock.url, key, configuration), 'budget-seed');
  await mock.stop();
  storeAgain(db, id, WORKLOADS - 1);
  mock = await startChild(MAIN, mockArgs(db, '--clock', 'manual'));
  try {
    const reviewed = await review(mock.url, key, configuration);
    const cap = async (method: 'PUT' | 'DELETE') => {
      const res = await fetch(`${mock.url}/_mock/budget`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(method === 'PUT' ? { 'content-type': 'application/json' } : {}) },
        ...(method === 'PUT' ? { body: JSON.stringify({ monthly_spend_cap_usd: 1e9 }) } : {}),
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`budget: ${method} /_mock/budget answered ${res.status}`);
    };
    let sent = 0;
    const launches = (budgeted: boolean) => async () => {
      await cap(budgeted ? 'PUT' : 'DELETE');
      const ms: number[] = [];
      for (let i = 0; i < LAUNCHES; i++) {
        const started = performance.now();
        await launch(mock.url, key, reviewed, `budget-${++sent}`);
        ms.push(performance.now() - started);
      }
      return median(ms);
    };
    // Untimed: the first budgeted launch brings the copies, never read, up to now.
    await launches(true)();
    const r = await alternate(ctx.settings.rounds, { budgeted: launches(true), open: launches(false) });
    return [
      figure(
        { id: 'budget', title: `POST /v1/rl-runs of a tenant with a budget and ${WORKLOADS} unsettled workloads, each brought up to now for the headroom, vs the same tenant without a budget`, unit: 'ms' },
        { label: 'with a budget', rounds: r.budgeted },
        { label: 'without a budget', rounds: r.open },
        { unsettled_workloads: WORKLOADS, launches_per_round: LAUNCHES },
      ),
    ];
  } finally {
    await mock.stop();
  }
}
