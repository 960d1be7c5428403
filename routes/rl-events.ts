import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../openapi/common.js';
import { RLEventPage } from '../openapi/rl-evidence.js';
import { isoTime } from '../server/clock.js';
import { CURSOR_SECRET, mintCursor, readCursor } from '../server/cursor.js';
import { ApiError } from '../server/errors.js';
import { currentWorkload } from '../server/workloads.js';
import { WorkloadParams } from './workloads.js';

const PageQuery = z.object({
  after: z.string().max(64).optional().describe('opaque cursor from a previous page; omit to start at the beginning'),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});

export default (async function rlEventRoutes(app) {
  app.get('/v1/workloads/:id/rl-events', {
    schema: {
      operationId: 'listWorkloadRLEvents',
      tags: ['Workloads'],
      summary: 'RL task evidence, keyset-paged with opaque cursors',
      params: WorkloadParams,
      querystring: PageQuery,
      response: { 200: RLEventPage, ...errorResponses },
    },
    config: { validationCodes: { 'querystring.limit': 'invalid_limit', 'querystring.after': 'invalid_cursor' } },
  }, async (request, reply) => {
    const { after, limit } = request.query;
    const page = app.store.write(() => {
      const row = currentWorkload(app, request.tenant.id, request.params.id);
      const secret = app.store.settings.secret(CURSOR_SECRET);
      let afterSeq = 0;
      if (after !== undefined && after !== '') {
        const seq = readCursor(secret, row.id, after);
        if (seq === undefined) throw new ApiError(400, 'invalid_cursor', 'query.after: not a cursor this server issued for this workload; pass next_cursor unchanged');
        afterSeq = seq;
      }
      // One consistent snapshot: rows and counters read in the same transaction.
      const rows = app.store.rlEvents.page(row.id, afterSeq, limit + 1);
      const counters = app.store.rlEvents.counters(row.id);
      const shown = rows.slice(0, limit);
      return {
        schema_version: 1 as const,
        events: shown.map((r) => ({
          id: String(r.seq),
          stage_id: r.stageId,
          generation: r.generation,
          received_at: isoTime(r.receivedAtMs),
          event: JSON.parse(r.event),
        })),
        next_cursor: mintCursor(secret, row.id, shown.length ? shown[shown.length - 1].seq : afterSeq),
        has_more: rows.length > limit,
        dropped_events: counters.dropped,
        truncated: counters.truncated,
      };
    });
    reply.header('cache-control', 'no-store');
    return page;
  });
}) satisfies FastifyPluginAsyncZod;
