/**
 * Body schemas of routes that read their body themselves, as it streams in (PUT /_mock/snapshot):
 * the schema documents the body in the OpenAPI document, and the validator leaves the stream
 * alone, since the route validates what it reads.
 */
const streamed = new WeakSet<object>();

export function streamedBody<T extends object>(schema: T): T {
  streamed.add(schema);
  return schema;
}

export const isStreamedBody = (schema: unknown): boolean => typeof schema === 'object' && schema !== null && streamed.has(schema);
