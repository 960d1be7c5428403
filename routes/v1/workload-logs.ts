import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LogHeaders } from '../../openapi/headers.js';
import { LiveLogQuery, WorkloadLogQuery, WorkloadParams } from '../../openapi/params.js';
import { LiveLogPage } from '../../openapi/workloads.js';
import { sha256Hex } from '../../server/domain/json-text.js';
import { RESPONSE_HEADERS } from '../../server/http/openapi-document.js';
import { liveLogPageView } from '../../server/http/views/evidence.js';
import { lazy } from '../../openapi/lazy.js';

export default (async function workloadLogRoutes(app) {
  const { evidence } = app.services;

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
      querystring: WorkloadLogQuery,
      response: { 200: { description: 'the log text', content: { 'text/plain': { schema: lazy(() => z.string()) } } } },
      [RESPONSE_HEADERS]: { 200: LogHeaders },
    },
  }, async (request, reply) => {
    const { stage, generation, member_id: member } = request.query;
    const { attempt, lines } = evidence.log(request.tenant.id, request.params.id, { stage, generation, member });
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
      querystring: LiveLogQuery,
      response: { 200: LiveLogPage },
    },
    config: { validationCodes: { 'querystring.after': 'invalid_cursor' } },
  }, async (request) =>
    liveLogPageView(evidence.liveLog(request.tenant.id, request.params.id, request.query.after, request.query.member_id)));
}) satisfies FastifyPluginAsyncZod;
