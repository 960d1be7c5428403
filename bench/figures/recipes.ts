import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAIN, benchScript, mockArgs, startChild } from '../children.js';
import type { Context } from '../context.js';
import { benchKey, get } from '../mock-api.js';
import { alternate } from '../rounds.js';
import { measure, throughputFigures, warmUp } from './http.js';

/** GET /v1/rl-recipes against a bare Fastify route that sends the very bytes the mock answered. */
export async function recipes(ctx: Context) {
  const mock = await startChild(MAIN, mockArgs(join(ctx.dir, 'recipes.db')));
  const key = benchKey();
  const bytes = await get(mock.url, key, '/v1/rl-recipes');
  const bodyFile = join(ctx.dir, 'recipes.json');
  writeFileSync(bodyFile, bytes);
  const bare = await startChild(benchScript('servers/bare-fastify.js'), ['--body-file', bodyFile]);
  try {
    if ((await get(bare.url, key, '/v1/rl-recipes')) !== bytes) throw new Error('the bare route does not serve the mock\'s bytes');
    const request = { path: '/v1/rl-recipes', headers: { authorization: `Bearer ${key}` } };
    await warmUp(ctx, mock, request);
    await warmUp(ctx, bare, request);
    const r = await alternate(ctx.settings.rounds, { mock: measure(ctx, mock, request), bare: measure(ctx, bare, request) });
    return throughputFigures(
      'recipes',
      'GET /v1/rl-recipes',
      { op: '>=', ratio: 0.7 },
      { label: 'mock', runs: r.mock },
      { label: `bare Fastify, same ${Buffer.byteLength(bytes)} bytes`, runs: r.bare },
    );
  } finally {
    await Promise.all([mock.stop(), bare.stop()]);
  }
}
