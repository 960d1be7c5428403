import type { FastifyReply } from 'fastify';

/**
 * Sends JSON that was already encoded as the route's response schema describes (a cached list,
 * stored event text): Fastify passes a string or Buffer by its serializer, so the schema still
 * documents the answer but no longer checks it. Every such route goes through here, and a
 * contract test validates what each one sends against its declared schema.
 */
export function sendEncodedJson(reply: FastifyReply, status: number, json: string | Buffer): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(json);
}
