import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { RLEventPage } from '../../openapi/rl-evidence.js';
import { isoTime } from '../../server/domain/clock.js';
import { CURSOR_SECRET, mintCursor, readCursor } from '../../server/domain/evidence/cursors.js';
import { ApiError } from '../../server/domain/errors.js';
import { currentWorkload } from '../../server/domain/workloads/rows.js';
import type { RLEventRow } from '../../store/rl-events.js';
import { WorkloadParams } from '../../openapi/params.js';

const PageQuery = z.object({
  after: z.string().max(64).optional().describe('opaque cursor from a previous page; omit to start at the beginning'),
  limit: z.coerce.number().int().min(1).max(200).default(100),
});

/**
 * One RLEventRow, its `event` spliced in as stored: every stored event was checked against
 * RLEvent when it was written (ingest, materialiser) and is kept as its canonical JSON.
 */
const rowJson = (r: RLEventRow) =>
  `{"id":"${r.seq}","stage_id":${JSON.stringify(r.stageId)},"generation":${r.generation},"received_at":"${isoTime(r.receivedAtMs)}","event":${r.event}}`;

export default (async function rlEventRoutes(app) {
  app.get('/workloads/:id/rl-events', {
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
    const body = app.store.write(() => {
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
      const cursor = mintCursor(secret, row.id, shown.length ? shown[shown.length - 1].seq : afterSeq);
      // RLEventPage's keys in its own order, as its serializer wrote them.
      return (
        `{"schema_version":1,"events":[${shown.map(rowJson).join(',')}],"next_cursor":${JSON.stringify(cursor)},` +
        `"has_more":${rows.length > limit},"dropped_events":${counters.dropped},"truncated":${counters.truncated}}`
      );
    });
    reply.header('cache-control', 'no-store');
    // Parsing 100 stored events and encoding them again through RLEventPage was most of a page's
    // CPU and of the heap that concurrent reads grow (bench/, rl-events and memory profiles). The
    // schema above still documents the reply; the text goes out as is, past its serializer.
    return (reply as FastifyReply).type('application/json; charset=utf-8').send(body);
  });
}) satisfies FastifyPluginAsyncZod;
