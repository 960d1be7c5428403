import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { packageRoot } from '../../server/boot/package-info.js';

/**
 * Validates response bodies against the RL + workload subset of the real Nodus OpenAPI document
 * (test/contract/openapi-rl-subset.json, a vendored copy). The document pins catalog
 * enums to the one recipe it serves; nodus-mock serves its catalog from data, so exactly those
 * enums are relaxed and nothing else.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

export const CONTRACT_PATH = join(packageRoot(), 'test', 'contract', 'openapi-rl-subset.json');

type Json = Record<string, any>;

function loadContract(): Json {
  const doc = JSON.parse(readFileSync(CONTRACT_PATH, 'utf8')) as Json;
  const schemas = doc.components.schemas;
  for (const name of ['RLRecipeRequest', 'RLRunRequest']) {
    delete schemas[name].properties.recipe_id.enum;
    delete schemas[name].properties.recipe_version.enum;
  }
  delete schemas.RLMetadata.properties.environment_id.enum;
  return doc;
}

const doc = loadContract();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...doc, $id: 'contract' });

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** The contract's errors for this body at this operation and status, or [] when it conforms. */
export function contractErrors(method: string, pathTemplate: string, status: number, body: unknown): string[] {
  const op = doc.paths[pathTemplate]?.[method.toLowerCase()];
  if (!op) return [`the contract has no operation ${method} ${pathTemplate}`];
  const statusKey = op.responses[String(status)] ? String(status) : 'default';
  const response = op.responses[statusKey];
  if (!response) return [`the contract declares no ${status} (nor default) for ${method} ${pathTemplate}`];
  const media = response.content?.['application/json'];
  if (!media?.schema) return [];
  const ref = `contract#/${pointer('paths', pathTemplate, method.toLowerCase(), 'responses', statusKey, 'content', 'application/json', 'schema')}`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

/** Validates a component schema by name, e.g. `RLEvent`. */
export function componentErrors(name: string, value: unknown): string[] {
  const ref = `contract#/components/schemas/${name}`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

/** One-line tap assertion: `conforms(t, 'GET', '/v1/rl-recipes', res)`. */
export function conforms(
  t: { same(found: any, wanted: any, message: string): unknown },
  method: string,
  pathTemplate: string,
  res: { status: number; body: unknown },
): void {
  t.same(contractErrors(method, pathTemplate, res.status, res.body), [], `${method} ${pathTemplate} ${res.status} conforms to the contract`);
}
