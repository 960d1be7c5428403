import type { FastifyReply } from 'fastify';
import type { z } from 'zod';

/**
 * Sends JSON that was already encoded as the route's response schema describes (a cached list,
 * stored event text): Fastify passes a string or Buffer by its serializer, so the schema still
 * documents the answer but no longer checks it. Every such route goes through here, and a
 * contract test validates what each one sends against its declared schema.
 */
export function sendEncodedJson(reply: FastifyReply, status: number, json: string | Buffer): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(json);
}

/** How each field of a schema's output is written as JSON text from a value of another shape. */
export type FieldWriters<S extends z.ZodObject, V> = { [K in keyof z.output<S>]-?: (value: V) => string };

/**
 * A writer of an object schema's JSON text: the schema gives the keys and their order (its
 * serializer's), `fields` the JSON text of each value. Typed by the schema, so a field it gains
 * does not compile until it is written here too. The writer is one concatenation compiled from
 * the keys, as Fastify's serializer compiles its own: a loop over the keys made a page of 100
 * RL event rows a fifth slower than a template. Each key enters the code as a JSON string
 * literal, so no key can be more than one.
 */
export function objectJson<S extends z.ZodObject, V>(schema: S, fields: FieldWriters<S, V>): (value: V) => string {
  const keys = Object.keys(schema.shape);
  const writers = keys.map((key) => (fields as Record<string, (value: V) => string>)[key]);
  const literal = (text: string) => JSON.stringify(text);
  const parts = keys.map((key, i) => `${literal(`${i ? ',' : '{'}${literal(key)}:`)} + w${i}(value)`);
  const names = keys.map((_, i) => `w${i}`);
  const compile = new Function(...names, `return (value) => ${parts.join(' + ') || "'{'"} + '}';`);
  return compile(...writers) as (value: V) => string;
}
