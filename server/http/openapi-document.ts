/**
 * The OpenAPI document: generated from the route schemas by @fastify/swagger (`npm run openapi`,
 * which commits it as openapi/openapi.json), and served from that committed file. Building it at
 * every start cost @fastify/swagger and its dependencies (yaml alone is 72 files) for a document
 * that only changes with the code; test/openapi.test.ts checks that a freshly generated document
 * is what the server serves.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { packageRoot, packageVersion } from '../boot/package-info.js';

/**
 * @fastify/swagger marks every request body it documents as required; a route whose body may be
 * omitted says so with this schema key (copied onto the operation as an `x-` extension), and
 * `optionalBodies` turns it into `requestBody.required: false`.
 */
export const OPTIONAL_BODY = 'x-nodus-optional-body';

type Operation = Record<string, unknown> & { requestBody?: { required?: boolean } };

function optionalBodies<T extends { paths?: object }>(document: T): T {
  for (const operations of Object.values(document.paths ?? {}) as Record<string, Operation>[]) {
    for (const operation of Object.values(operations)) {
      if (!operation[OPTIONAL_BODY]) continue;
      delete operation[OPTIONAL_BODY];
      if (operation.requestBody) operation.requestBody.required = false;
    }
  }
  return document;
}

/**
 * jsonSchemaTransform converts a `body` that is one zod schema. Fastify also takes one schema per
 * media type (`body: { content: { type: { schema } } }`); those are converted type by type.
 */
const transform: typeof jsonSchemaTransform = (document) => {
  const content = (document.schema?.body as { content?: Record<string, { schema: unknown }> } | undefined)?.content;
  if (!content) return jsonSchemaTransform(document);
  const converted = jsonSchemaTransform({ ...document, schema: { ...document.schema, body: undefined } });
  const body = {
    content: Object.fromEntries(Object.entries(content).map(([type, media]) =>
      [type, { schema: jsonSchemaTransform({ ...document, schema: { body: media.schema } }).schema.body }])),
  };
  return { ...converted, schema: { ...converted.schema, body } };
};

/**
 * Registers @fastify/swagger, after which `app.swagger()` generates the document from the schemas
 * of the routes registered next.
 */
export async function describeRoutes(app: FastifyInstance): Promise<void> {
  const { default: swagger } = await import('@fastify/swagger');
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'nodus-mock',
        version: packageVersion(),
        description:
          'A stateful mock of the Nodus control plane: the /v1 RL and workload surfaces of the wire ' +
          'contract, plus the /_mock control API.',
      },
      servers: [{ url: '/' }],
      components: {
        securitySchemes: { ApiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'Nodus API key' } },
      },
      security: [{ ApiKey: [] }],
      tags: [
        { name: 'RL', description: 'RL recipes, previews, launches and the environment catalog' },
        { name: 'Workloads', description: 'Workloads and their evidence' },
        { name: 'Assets', description: 'Uploaded and imported code and data that workloads name' },
        { name: 'mock', description: 'Control API only a mock has: clock, faults, journal, reset' },
        { name: 'health', description: 'Liveness and readiness' },
      ],
    },
    transform,
    transformObject: (document) => optionalBodies(jsonSchemaTransformObject(document)),
  });
}

let committed: string | undefined;

/** openapi/openapi.json as served: compact JSON, read on first use. */
export function committedDocument(): string {
  committed ??= JSON.stringify(JSON.parse(readFileSync(join(packageRoot(), 'openapi', 'openapi.json'), 'utf8')));
  return committed;
}
