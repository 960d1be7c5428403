import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorResponses } from '../../openapi/common.js';
import { LiveLogPage } from '../../openapi/workloads.js';
import { sha256Hex } from '../../server/domain/canonical.js';
import { mintCursor, readCursor } from '../../server/domain/evidence/cursors.js';
import { ApiError } from '../../server/domain/errors.js';
import { currentWorkload } from '../../server/domain/workloads/rows.js';
import { WorkloadParams } from '../../openapi/params.js';

/** Lines per live page: a page stays well under a megabyte even when events carry traces. */
const LIVE_PAGE_LINES = 500;

const memberId = z.string().min(1).max(128).optional().describe('a member of a distributed group; no workload here is distributed');

const LogQuery = z.object({
  stage: z.string().min(1).max(128).optional().describe('stage id; default the stage whose log started last'),
  generation: z.coerce.number().int().min(1).optional().describe('execution generation, from 1; default the latest'),
  member_id: memberId,
});

const LiveQuery = z.object({
  after: z.string().max(64).optional().describe('opaque cursor from the previous page; empty or absent starts at the beginning'),
  member_id: memberId,
});

const noMember = (workloadId: string, member: string) =>
  new ApiError(404, 'not_found', `workload ${workloadId} is not distributed: it has no member ${member}`);

export default (async function workloadLogRoutes(app) {
  app.get('/workloads/:id/logs', {
    schema: {
      operationId: 'getWorkloadLogs',
      tags: ['Workloads'],
      summary: 'One attempt\'s log (a stage in a generation) as text, the latest unless chosen',
      description:
        'The retained live snapshot: at most --max-log-bytes-per-attempt of whole lines (default 8 MiB), lines joined with a line ' +
        'break. Headers: X-Nodus-SHA256 (hex digest of the body), X-Nodus-Log-Source: live-snapshot, X-Nodus-Log-Truncated ' +
        '(true when later lines were dropped), X-Nodus-Log-Expired: false, X-Nodus-Stage-Id and X-Nodus-Generation (the attempt ' +
        'served). 404 when the attempt has written no line yet.',
      params: WorkloadParams,
      querystring: LogQuery,
      response: { 200: { description: 'the log text', content: { 'text/plain': { schema: z.string() } } }, ...errorResponses },
    },
  }, async (request, reply) => {
    const { stage, generation, member_id: member } = request.query;
    const { attempt, lines } = app.store.write(() => {
      const row = currentWorkload(app, request.tenant.id, request.params.id);
      if (member !== undefined) throw noMember(row.id, member);
      const found = app.store.runtime.logAttempt(row.id, stage, generation);
      if (!found) {
        const which = [stage && `stage ${stage}`, generation && `generation ${generation}`].filter(Boolean).join(', ');
        throw new ApiError(404, 'not_found', `workload ${row.id} has written no log${which ? ` for ${which}` : ''} yet`);
      }
      return { attempt: found, lines: app.store.runtime.attemptLines(row.id, found.stageId, found.generation) };
    });
    const body = lines.join('\n');
    return reply
      .header('x-nodus-sha256', sha256Hex(body))
      .header('x-nodus-log-source', 'live-snapshot')
      .header('x-nodus-log-truncated', String(attempt.truncated))
      .header('x-nodus-log-expired', 'false')
      .header('x-nodus-stage-id', attempt.stageId)
      .header('x-nodus-generation', String(attempt.generation))
      .type('text/plain; charset=utf-8')
      .send(body);
  });

  app.get('/workloads/:id/logs/live', {
    schema: {
      operationId: 'liveLogs',
      tags: ['Workloads'],
      summary: 'Log lines after a cursor, one chunk per line, across stages and generations',
      params: WorkloadParams,
      querystring: LiveQuery,
      response: { 200: LiveLogPage, ...errorResponses },
    },
    config: { validationCodes: { 'querystring.after': 'invalid_cursor' } },
  }, async (request) =>
    app.store.write(() => {
      const row = currentWorkload(app, request.tenant.id, request.params.id);
      const { after, member_id: member } = request.query;
      if (member !== undefined) throw noMember(row.id, member);
      // Its own secret: an RL event cursor is not a log cursor, even for the same workload.
      const secret = app.store.settings.secret('log-cursor');
      let afterSeq = 0;
      if (after) {
        const seq = readCursor(secret, row.id, after);
        if (seq === undefined) throw new ApiError(400, 'invalid_cursor', 'query.after: not a cursor this server issued for this workload\'s log; pass next_cursor unchanged');
        afterSeq = seq;
      }
      const rows = app.store.runtime.logs(row.id, afterSeq, LIVE_PAGE_LINES);
      return {
        chunks: rows.map((r) => ({ id: r.seq, stage_id: r.stageId, generation: r.generation, text: `${r.line}\n` })),
        next_cursor: mintCursor(secret, row.id, rows.length ? rows[rows.length - 1].seq : afterSeq),
        truncated: app.store.runtime.logsTruncated(row.id),
      };
    }));
}) satisfies FastifyPluginAsyncZod;
