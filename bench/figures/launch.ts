import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MAIN, benchScript, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import type { LoadRequest } from '../load.js';
import { benchKey, launch, review } from '../mock-api.js';
import { alternate } from '../rounds.js';
import { measure, throughputFigures, warmUp } from './http.js';

/**
 * POST /v1/rl-runs: fresh Idempotency-Keys (each one a committed workload, idempotency record,
 * grading plan and journal row) and replays of one key, both against a bare Fastify POST that
 * parses the same body. All three send the same bytes but for the key.
 */
export async function launches(ctx: Context) {
  const db = join(ctx.dir, 'launch.db');
  const mock = await startChild(MAIN, mockArgs(db));
  const bare = await startChild(benchScript('servers/bare-fastify.js'));
  try {
    const key = benchKey();
    const reviewed = await review(mock.url, key, { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'evaluate' });
    const prefix = randomBytes(4).toString('hex');
    const replayKey = `bench-${prefix}-replayed`;
    await launch(mock.url, key, reviewed, replayKey);

    let sent = 0;
    const post = (idempotencyKey?: () => string): LoadRequest => ({
      method: 'POST',
      path: '/v1/rl-runs',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': replayKey },
      body: reviewed.body,
      ...(idempotencyKey ? {
        setupRequest: (request) => {
          request.headers['idempotency-key'] = idempotencyKey();
          return request;
        },
      } : {}),
    });
    // autocannon builds each request through setupRequest: keys are unique across every run.
    const fresh = post(() => `bench-${prefix}-${++sent}`);
    const replay = post();
    for (const [server, request] of [[mock, fresh], [mock, replay], [bare, fresh]] as const) await warmUp(ctx, server, request);
    const r = await alternate(ctx.settings.rounds, {
      fresh: measure(ctx, mock, fresh),
      replay: measure(ctx, mock, replay),
      bare: measure(ctx, bare, fresh),
    });

    // Every fresh key that got its 202 must be a committed workload: the figure counts real work.
    const reader = new Database(db, { readonly: true });
    const workloads = (reader.prepare('SELECT count(*) AS n FROM workloads').get() as { n: number }).n;
    reader.close();
    const accepted = r.fresh.reduce((n, x) => n + x.requests, 0);
    if (workloads < accepted + 1) throw new Error(`${accepted} launches answered 202 but only ${workloads} workloads are stored`);

    const baseline = { label: 'bare Fastify POST, same body parsed', runs: r.bare };
    return [
      ...throughputFigures('launch', 'POST /v1/rl-runs, fresh keys', { op: '>=', ratio: 0.4 }, { label: 'mock, each turn\'s launches in one commit', runs: r.fresh }, baseline),
      ...throughputFigures('launch-replay', 'POST /v1/rl-runs, replays of one key', { op: '>=', ratio: 0.7 }, { label: 'mock, stored answer replayed', runs: r.replay }, baseline),
    ];
  } finally {
    await Promise.all([mock.stop(), bare.stop()]);
  }
}
