/**
 * The OpenAPI document: generated from the route schemas by @fastify/swagger (`npm run openapi`,
 * which commits it as openapi/openapi.json), and served from that committed file. Building it at
 * every start cost @fastify/swagger and its dependencies (yaml alone is 72 files) for a document
 * that only changes with the code; test/contract/openapi.test.ts checks that a freshly generated document
 * is what the server serves.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { ERROR_DESCRIPTIONS } from '../../openapi/common.js';
import { buildEverySchema, built } from '../../openapi/lazy.js';
import { HEADER_NAMES } from '../../openapi/headers.js';
import { SANDBOX_ERROR_DESCRIPTIONS } from '../../openapi/secrets.js';
import { packageLicense, packageRoot, packageVersion } from '../boot/package-info.js';

/**
 * @fastify/swagger marks every request body it documents as required; a route whose body may be
 * omitted says so with this schema key (copied onto the operation as an `x-` extension), and
 * `optionalBodies` turns it into `requestBody.required: false`.
 */
export const OPTIONAL_BODY = 'x-nodus-optional-body';

/**
 * The headers a route sends, by status, as zod objects keyed lower-case (openapi/headers.ts):
 * `[RESPONSE_HEADERS]: { 202: ReplayedHeaders }` beside `response`. @fastify/swagger documents no
 * headers of a zod response, so `responseHeaders` puts them in.
 */
export const RESPONSE_HEADERS = 'x-nodus-response-headers';

type JsonSchema = Record<string, unknown> & { description?: string };
type ObjectSchema = { properties?: Record<string, JsonSchema>; required?: string[] };
type HeaderObject = { description?: string; required?: boolean; schema: JsonSchema };
type ResponseObject = { description?: string; headers?: Record<string, HeaderObject>; content?: Record<string, { schema?: { $ref?: string } }> };
type Parameter = { in: string; name: string };
type Operation = Record<string, unknown> & {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean };
  responses?: Record<string, ResponseObject>;
};
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

const SPELLING = new Map<string, string>(HEADER_NAMES.map((name) => [name.toLowerCase(), name]));

/** Node and fastify lower-case header names; the document spells them as the API does. */
function spelled(name: string, operation: Operation): string {
  const wire = SPELLING.get(name.toLowerCase());
  if (!wire) throw new Error(`${operation.operationId}: header ${name} is not in HEADER_NAMES (openapi/headers.ts)`);
  return wire;
}

/** Header parameters under their spelling; the declared response headers as header objects. */
function headers<T extends Document>(document: T): T {
  for (const operation of operationsOf(document)) {
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'header') parameter.name = spelled(parameter.name, operation);
    }
    const declared = operation[RESPONSE_HEADERS] as Record<string, ObjectSchema> | undefined;
    if (!declared) continue;
    delete operation[RESPONSE_HEADERS];
    for (const [status, object] of Object.entries(declared)) {
      const response = operation.responses?.[status];
      if (!response) throw new Error(`${operation.operationId}: headers declared for ${status}, which it does not answer`);
      response.headers = Object.fromEntries(Object.entries(object.properties ?? {}).map(([name, { description, ...schema }]) => [
        spelled(name, operation),
        { ...(description ? { description } : {}), ...(object.required?.includes(name) ? { required: true } : {}), schema },
      ]));
    }
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

type RouteDocument = Parameters<typeof jsonSchemaTransform>[0];

/** The JSON Schema of each status's response headers, converted the way responses are. */
function responseHeaders(document: RouteDocument): Record<string, unknown> | undefined {
  const declared = (document.schema as Record<string, unknown> | undefined)?.[RESPONSE_HEADERS] as Record<string, unknown> | undefined;
  if (!declared) return undefined;
  return jsonSchemaTransform({ ...document, schema: { response: declared } }).schema.response as Record<string, unknown>;
}

type RouteSchemas = Record<string, unknown> & {
  body?: unknown;
  response?: Record<string, unknown>;
  [RESPONSE_HEADERS]?: Record<string, unknown>;
};

type PerMediaType = { content: Record<string, { schema: unknown }> };

/** A schema built, or each schema of one given per media type (`{ content: { type: { schema } } }`). */
function own(schema: unknown): unknown {
  const content = (built(schema) as Partial<PerMediaType> | undefined)?.content;
  if (!content) return built(schema);
  return { ...(schema as PerMediaType), content: Object.fromEntries(Object.entries(content).map(([type, media]) => [type, { ...media, schema: built(media.schema) }])) };
}

const eachOwn = (schemas: Record<string, unknown>) => Object.fromEntries(Object.entries(schemas).map(([key, schema]) => [key, own(schema)]));

/**
 * A route's schemas themselves, not their stand-ins (openapi/lazy.ts): the generator knows a
 * component by the schema object the registry holds.
 */
function ownSchemas(schema: RouteSchemas): RouteSchemas {
  const route: RouteSchemas = { ...schema };
  for (const part of ['body', 'querystring', 'params', 'headers']) if (part in route) route[part] = own(route[part]);
  if (route.response) route.response = eachOwn(route.response);
  if (route[RESPONSE_HEADERS]) route[RESPONSE_HEADERS] = eachOwn(route[RESPONSE_HEADERS]);
  return route;
}

/**
 * jsonSchemaTransform converts a `body` that is one zod schema. Fastify also takes one schema per
 * media type (`body: { content: { type: { schema } } }`); those are converted type by type. The
 * response headers (RESPONSE_HEADERS) are converted here too, which jsonSchemaTransform leaves.
 */
const transform: typeof jsonSchemaTransform = (route) => {
  const document = { ...route, schema: route.schema && ownSchemas(route.schema as RouteSchemas) };
  const content = (document.schema?.body as { content?: Record<string, { schema: unknown }> } | undefined)?.content;
  const converted = jsonSchemaTransform(content ? { ...document, schema: { ...document.schema, body: undefined } } : document);
  const body = content && {
    content: Object.fromEntries(Object.entries(content).map(([type, media]) =>
      [type, { schema: jsonSchemaTransform({ ...document, schema: { body: media.schema } }).schema.body }])),
  };
  const sent = responseHeaders(document);
  return {
    ...converted,
    schema: { ...converted.schema, ...(body ? { body } : {}), ...(sent ? { [RESPONSE_HEADERS]: sent } : {}) },
  };
};

/**
 * Registers @fastify/swagger, after which `app.swagger()` generates the document from the schemas
 * of the routes registered next. Every wire schema is built first, in the order the document
 * lists them.
 */
export async function describeRoutes(app: FastifyInstance): Promise<void> {
  buildEverySchema();
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
    transformObject: (document) => reachedComponents(headers(describeErrors(optionalBodies(jsonSchemaTransformObject(document))))),
  });
}

let committed: string | undefined;

/** openapi/openapi.json as served: compact JSON, read on first use. */
export function committedDocument(): string {
  committed ??= JSON.stringify(JSON.parse(readFileSync(join(packageRoot(), 'openapi', 'openapi.json'), 'utf8')));
  return committed;
}
