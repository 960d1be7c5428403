import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Snapshot, SnapshotRestored } from '../../openapi/snapshot.js';
import { OPTIONS } from '../../server/config.js';
import { ApiError } from '../../server/http/api-error.js';
import { sendJsonStream } from '../../server/http/json-stream.js';
import { streamedBody } from '../../server/http/streamed-body.js';
import { snapshotJson } from '../../server/http/views/snapshot.js';

const tooLarge = (limit: number) =>
  new ApiError(413, 'payload_too_large', `the snapshot is larger than --${OPTIONS.maxSnapshotBytes.flag} (${limit} bytes)`);

/** The body's bytes as they arrive, refused at the limit: counted, since a chunked body declares no length. */
async function* upTo(body: Readable, limit: number): AsyncGenerator<Uint8Array> {
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) throw tooLarge(limit);
    yield chunk;
  }
}

/** The body handed to the route unread, or refused at once when Content-Length is over the limit. */
function passBody(limit: number) {
  return (request: FastifyRequest, payload: Readable, done: (err: Error | null, body?: Readable) => void) => {
    if (Number(request.headers['content-length']) > limit) return done(tooLarge(limit));
    done(null, payload);
  };
}

/** The tenant's whole state as one document, and back (docs/snapshots.md). */
export default (async function mockSnapshotRoutes(app) {
  const { snapshots } = app.services;
  const limit = app.config.maxSnapshotBytes;
  // The document can be larger than the process could hold, or than one string can be: both ways
  // it streams. JSON alone, read by the restore as it arrives.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', passBody(limit));

  app.get('/snapshot', {
    // The document holds the journal: journaled, each snapshot of a tenant would differ from the last.
    config: { journal: false },
    schema: {
      operationId: 'getMockSnapshot',
      tags: ['mock'],
      summary: 'This tenant\'s whole state as one document that PUT /_mock/snapshot (or --restore) takes back',
      response: { 200: Snapshot },
    },
  }, async (request, reply) => {
    const exported = await snapshots.snapshot(request.tenant.id);
    return sendJsonStream(reply, snapshotJson(exported), exported.close);
  });

  app.put('/snapshot', {
    schema: {
      operationId: 'restoreMockSnapshot',
      tags: ['mock'],
      summary: 'Replace this tenant\'s whole state with a snapshot\'s, in one transaction; answers the rows restored per table',
      body: streamedBody(Snapshot),
      response: { 200: SnapshotRestored },
    },
  }, async (request, reply) => {
    // No body at all is an empty document, refused as one.
    const body = request.body as unknown as Readable | undefined;
    try {
      const rows = await snapshots.restore(request.tenant.id, body ? upTo(body, limit) : []);
      return { restored: true as const, rows };
    } catch (err) {
      // Refused before the document had all arrived: the rest of it, unread, would hold up the
      // next request on this connection until --request-timeout-ms. The answer closes it instead.
      if (body && !body.readableEnded) reply.header('connection', 'close');
      throw err;
    }
  });
}) satisfies FastifyPluginAsyncZod;
