import { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
import type { FastifyReply } from 'fastify';

/** JSON text gathered into one write: large enough that writes cost little, small beside any row. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Sends JSON text made piece by piece (a document too large to hold as one string), as the
 * response reads it: the next chunk is made only when the connection has taken the last ones,
 * and the event loop turns between two chunks, so other requests are served meanwhile. `end`
 * runs once, when the response is done or given up. A piece that throws after the first chunk
 * went out makes Fastify destroy the connection: the client sees it cut short, before the end of
 * the chunked body, never a shorter text that parses.
 */
export function sendJsonStream(reply: FastifyReply, pieces: Iterable<string>, end: () => void): FastifyReply {
  async function* chunks() {
    try {
      let chunk = '';
      for (const piece of pieces) {
        chunk += piece;
        if (chunk.length < CHUNK_CHARS) continue;
        yield chunk;
        chunk = '';
        await setImmediate();
      }
      yield chunk;
    } finally {
      end();
    }
  }
  const stream = Readable.from(chunks(), { objectMode: false, highWaterMark: CHUNK_CHARS });
  // A response given up before its first chunk never starts the generator, so never runs its finally.
  stream.once('close', end);
  return reply.code(200).type('application/json; charset=utf-8').send(stream);
}
