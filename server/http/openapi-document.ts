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
import { ERROR_DESCRIPTIONS } from '../../openapi/common.js';
import { SANDBOX_ERROR_DESCRIPTIONS } from '../../openapi/secrets.js';
import { packageLicense, packageRoot, packageVersion } from '../boot/package-info.js';

/**
 * @fastify/swagger marks every request body it documents as required; a route whose body may be
 * omitted says so with this schema key (copied onto the operation as an `x-` extension), and
 * `optionalBodies` turns it into `requestBody.required: false`.
 */
export const OPTIONAL_BODY = 'x-nodus-optional-body';

type ResponseObject = { description?: string; content?: Record<string, { schema?: { $ref?: string } }> };
type Operation = Record<string, unknown> & { requestBody?: { required?: boolean }; responses?: Record<string, ResponseObject> };
type Document = { paths?: object; components?: { schemas?: Record<string, unknown> } };

function operationsOf(document: Document): Operation[] {
  return (Object.values(document.paths ?? {}) as Record<string, Operation>[]).flatMap((operations) => Object.values(operations));
}

function optionalBodies<T extends Document>(document: T): T {
  for (const operation of operationsOf(document)) {
    if (!operation[OPTIONAL_BODY]) continue;
    delete operation[OPTIONAL_BODY];
    if (operation.requestBody) operation.requestBody.required = false;
  }
  return document;
}

const SCHEMAS = '#/components/schemas/';

/**
 * @fastify/swagger describes every response it cannot name as "Default Response"; an envelope
 * response says instead what its status means (openapi/common.ts).
 */
function describeErrors<T extends Document>(document: T): T {
  for (const operation of operationsOf(document)) {
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      const ref = response.content?.['application/json']?.schema?.$ref;
      if (ref === `${SCHEMAS}Error`) response.description = ERROR_DESCRIPTIONS[status as keyof typeof ERROR_DESCRIPTIONS] ?? response.description;
      if (ref === `${SCHEMAS}SandboxError`) response.description = SANDBOX_ERROR_DESCRIPTIONS[status as keyof typeof SANDBOX_ERROR_DESCRIPTIONS] ?? response.description;
    }
  }
  return document;
}

/** Calls `visit` with every object in `value` that holds a `$ref`, nested ones included. */
function eachRef(value: unknown, visit: (holder: { $ref: string }) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) eachRef(item, visit);
  } else if (value !== null && typeof value === 'object') {
    if (typeof (value as { $ref?: unknown }).$ref === 'string') visit(value as { $ref: string });
    for (const child of Object.values(value)) eachRef(child, visit);
  }
}

/**
 * jsonSchemaTransformObject emits every registered schema twice, as read (`<id>Input`) and as
 * written (`<id>`), whether or not an operation uses it. Only the components the operations
 * reach are kept; and where a schema is only ever read, its component takes the plain name (the
 * contract's, for request bodies such as RLRunRequest).
 */
function reachedComponents<T extends Document>(document: T): T {
  const schemas = document.components?.schemas;
  if (!schemas) return document;
  const reached = new Set<string>();
  const reach = ({ $ref }: { $ref: string }) => {
    const name = $ref.slice(SCHEMAS.length);
    if (!$ref.startsWith(SCHEMAS) || reached.has(name)) return;
    reached.add(name);
    eachRef(schemas[name], reach);
  };
  eachRef(document.paths, reach);
  const names = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    if (!reached.has(name)) continue;
    // `<id>Input` is the read twin of `<id>` exactly when `<id>` was emitted too (the library
    // refuses ids that would collide); an id that itself ends in Input (BucketInput) keeps it.
    const plain = name.replace(/Input$/, '');
    names.set(name, plain !== name && plain in schemas && !reached.has(plain) ? plain : name);
  }
  document.components!.schemas = Object.fromEntries([...names].map(([name, kept]) => [kept, schemas[name]]));
  const rename = (holder: { $ref: string }) => {
    const name = holder.$ref.slice(SCHEMAS.length);
    if (holder.$ref.startsWith(SCHEMAS) && names.has(name)) holder.$ref = `${SCHEMAS}${names.get(name)}`;
  };
  eachRef(document.paths, rename);
  eachRef(document.components!.schemas, rename);
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
        license: { name: packageLicense(), identifier: packageLicense() },
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
    transformObject: (document) => reachedComponents(describeErrors(optionalBodies(jsonSchemaTransformObject(document)))),
  });
}

let committed: string | undefined;

/** openapi/openapi.json as served: compact JSON, read on first use. */
export function committedDocument(): string {
  committed ??= JSON.stringify(JSON.parse(readFileSync(join(packageRoot(), 'openapi', 'openapi.json'), 'utf8')));
  return committed;
}
