import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { errorResponses } from '../../openapi/common.js';
import { Snapshot, SnapshotRestored } from '../../openapi/snapshot.js';
import { sendJsonStream } from '../../server/http/json-stream.js';
import { snapshotJson } from '../../server/http/views/snapshot.js';

/** The tenant's whole state as one document, and back (docs/snapshots.md). */
export default (async function mockSnapshotRoutes(app) {
  const { snapshots } = app.services;

  app.get('/snapshot', {
    schema: {
      operationId: 'getMockSnapshot',
      tags: ['mock'],
      summary: 'This tenant\'s whole state as one document that PUT /_mock/snapshot (or --restore) takes back',
      response: { 200: Snapshot, ...errorResponses() },
    },
  // Streamed: the document can be larger than the process could hold, or than one string can be.
  }, async (request, reply) => {
    const exported = await snapshots.snapshot(request.tenant.id);
    return sendJsonStream(reply, snapshotJson(exported), exported.close);
  });

  app.put('/snapshot', {
    // The document is larger than any other body: its own limit, --max-snapshot-bytes.
    bodyLimit: app.config.maxSnapshotBytes,
    config: { validationCodes: { body: 'invalid_snapshot' } },
    schema: {
      operationId: 'restoreMockSnapshot',
      tags: ['mock'],
      summary: 'Replace this tenant\'s whole state with a snapshot\'s, in one transaction; answers the rows restored per table',
      body: Snapshot,
      response: { 200: SnapshotRestored, ...errorResponses(400, 413, 415) },
    },
  }, async (request) => ({ restored: true as const, rows: snapshots.restore(request.tenant.id, request.body) }));
}) satisfies FastifyPluginAsyncZod;
