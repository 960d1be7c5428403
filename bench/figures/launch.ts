import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { MAIN, benchScript, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import type { LoadRequest } from '../load.js';
import { readLaunchRows } from '../materialised-rows.js';
import { benchKey, get, launch, review } from '../mock-api.js';
import { alternate } from '../rounds.js';
import { measure, throughputFigures, warmUp } from './http.js';

/** Workloads stored in a file: every launch answered 202 must be one, or a figure counts no work. */
function storedWorkloads(db: string): number {
  const reader = new Database(db, { readonly: true });
  try {
    return (reader.prepare('SELECT count(*) AS n FROM workloads').get() as { n: number }).n;
  } finally {
    reader.close();
  }
}

/**
 * POST /v1/rl-runs: fresh Idempotency-Keys (each one a committed workload, idempotency record,
 * grading plan and journal row) and replays of one key, against a bare Fastify POST that parses
 * the same body, and fresh keys against the durable baseline (a bare route committing the same
 * rows with the same pragmas and group commit: servers/durable-fastify.ts), and replays against
 * the same bare route journaling each request and writing nothing else (its --journal-only). All
 * send the same bytes but for the key.
 */
export async function launches(ctx: Context) {
  const db = join(ctx.dir, 'launch.db');
  const mock = await startChild(MAIN, mockArgs(db));
  const bare = await startChild(benchScript('servers/bare-fastify.js'));
  let durable: Awaited<ReturnType<typeof startChild>> | undefined;
  let journaled: Awaited<ReturnType<typeof startChild>> | undefined;
  try {
    const key = benchKey();
    const reviewed = await review(mock.url, key, { recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', mode: 'evaluate' });
    const prefix = randomBytes(4).toString('hex');
    const replayKey = `bench-${prefix}-replayed`;
    const launched = await launch(mock.url, key, reviewed, replayKey);
    // A /_mock call commits the journal rows still waiting: the launch's own is one of them.
    await get(mock.url, key, '/_mock/clock');
    const rowsFile = join(ctx.dir, 'launch-rows.json');
    writeFileSync(rowsFile, JSON.stringify(readLaunchRows(db, launched, replayKey)));
    const durableDb = join(ctx.dir, 'launch-durable.db');
    durable = await startChild(benchScript('servers/durable-fastify.js'), ['--rows', rowsFile, '--db', durableDb]);
    journaled = await startChild(benchScript('servers/durable-fastify.js'), ['--rows', rowsFile, '--db', join(ctx.dir, 'launch-journaled.db'), '--journal-only']);

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
    for (const [server, request] of [[mock, fresh], [mock, replay], [bare, fresh], [durable, fresh], [journaled, replay]] as const) await warmUp(ctx, server, request);
    // Fresh launches and the durable baseline run next to each other in every round (the order is
    // reversed each round, so apart they were the two ends of it): their figure has the tightest
    // target, and a load that grows or fades over a round moved it by 0.1 or more when they were apart.
    const r = await alternate(ctx.settings.rounds, {
      fresh: measure(ctx, mock, fresh),
      durable: measure(ctx, durable, fresh),
      replay: measure(ctx, mock, replay),
      bare: measure(ctx, bare, fresh),
      journaled: measure(ctx, journaled, replay),
    });

    const answered = (runs: { requests: number }[]) => runs.reduce((n, x) => n + x.requests, 0);
    for (const [file, accepted, stored] of [[db, answered(r.fresh), storedWorkloads(db) - 1], [durableDb, answered(r.durable), storedWorkloads(durableDb)]] as const) {
      if (stored < accepted) throw new Error(`${accepted} launches answered 202 but only ${stored} workloads are stored in ${file}`);
    }

    const bareBaseline = { label: 'bare Fastify POST, same body parsed', runs: r.bare };
    const subject = { label: 'mock, each turn\'s launches in one commit', runs: r.fresh };
    const replays = { label: 'mock, stored answer replayed', runs: r.replay };
    return [
      ...throughputFigures('launch', 'POST /v1/rl-runs, fresh keys', { op: '>=', ratio: 0.4 }, subject, bareBaseline),
      ...throughputFigures('launch-durable', 'POST /v1/rl-runs, fresh keys, against the same rows committed alone', { op: '>=', ratio: 0.7 }, subject, { label: 'bare Fastify POST committing the same rows, group commit', runs: r.durable }),
      ...throughputFigures('launch-replay', 'POST /v1/rl-runs, replays of one key', { op: '>=', ratio: 0.7 }, replays, bareBaseline),
      ...throughputFigures('launch-replay-journaled', 'POST /v1/rl-runs, replays of one key, against a bare POST that journals each request', undefined, replays, { label: 'bare Fastify POST writing the request\'s journal row', runs: r.journaled }),
    ];
  } finally {
    await Promise.all([mock.stop(), bare.stop(), durable?.stop(), journaled?.stop()]);
  }
}
