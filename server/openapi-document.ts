/**
 * What the generated OpenAPI document needs beyond the route schemas. @fastify/swagger marks every
 * request body it documents as required; a route whose body may be omitted says so with this
 * schema key (copied onto the operation as an `x-` extension), and `optionalBodies` turns it into
 * `requestBody.required: false`.
 */
export const OPTIONAL_BODY = 'x-nodus-optional-body';

type Operation = Record<string, unknown> & { requestBody?: { required?: boolean } };

export function optionalBodies<T extends { paths?: object }>(document: T): T {
  for (const operations of Object.values(document.paths ?? {}) as Record<string, Operation>[]) {
    for (const operation of Object.values(operations)) {
      if (!operation[OPTIONAL_BODY]) continue;
      delete operation[OPTIONAL_BODY];
      if (operation.requestBody) operation.requestBody.required = false;
    }
  }
  return document;
}
