import { compareSchema } from './schema-shape.js';

/**
 * Compares what two OpenAPI documents declare around one operation's bodies: its parameters
 * (path-level ones included) by location and name, and each response's headers by name, both
 * ways, with `required` and the schema (schema-shape.ts decides what "the same schema" means).
 * Names are compared as spelled: a document showing `idempotency-key` where the contract shows
 * `Idempotency-Key` reads as one missing and one extra.
 */

type Json = Record<string, any>;

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

interface Declared {
  required: boolean;
  schema: Json;
}

/** `METHOD /path` for every operation of a document. */
export function operationsOf(doc: Json): string[] {
  return Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).filter((key) => METHODS.includes(key)).map((method) => `${method.toUpperCase()} ${path}`));
}

function declaredParameters(doc: Json, path: string, method: string): Map<string, Declared> {
  const item = doc.paths[path];
  const declared = new Map<string, Declared>();
  // An operation's own parameter overrides the path's of the same location and name.
  for (const p of [...(item.parameters ?? []), ...(item[method].parameters ?? [])]) {
    declared.set(`${p.in} ${p.name}`, { required: p.required === true, schema: p.schema ?? {} });
  }
  return declared;
}

function declaredHeaders(doc: Json, path: string, method: string): Map<string, Declared> {
  const declared = new Map<string, Declared>();
  for (const [status, response] of Object.entries<Json>(doc.paths[path][method].responses ?? {})) {
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
      declared.set(`${status} header ${name}`, { required: header.required === true, schema: header.schema ?? {} });
    }
  }
  return declared;
}

function compareDeclared(
  where: string,
  want: Map<string, Declared>,
  got: Map<string, Declared>,
  additions: ReadonlySet<string>,
  contract: Json,
  ours: Json,
  out: string[],
): void {
  for (const name of want.keys()) if (!got.has(name)) out.push(`${where}: ${name}: missing`);
  for (const name of got.keys()) if (!want.has(name) && !additions.has(name)) out.push(`${where}: ${name}: not in the contract`);
  for (const name of additions) if (!got.has(name)) out.push(`${where}: ${name}: listed as an addition, not in the document`);
  for (const [name, wanted] of want) {
    const found = got.get(name);
    if (!found) continue;
    if (found.required !== wanted.required) out.push(`${where}: ${name}: required ${found.required}, contract ${wanted.required}`);
    out.push(...compareSchema(`${where}: ${name}`, wanted.schema, found.schema, contract.components.schemas, ours.components.schemas));
  }
}

/**
 * Mismatches of `operation` (`POST /v1/rl-runs`) between the contract and our document, one line
 * each, naming the operation and the parameter or header. `additions` are response headers we
 * declare beyond the contract, as `<status> header <Name>`.
 */
export function compareOperation(operation: string, contract: Json, ours: Json, additions: ReadonlySet<string> = new Set()): string[] {
  const [verb, path] = operation.split(' ');
  const method = verb.toLowerCase();
  const out: string[] = [];
  compareDeclared(operation, declaredParameters(contract, path, method), declaredParameters(ours, path, method), new Set(), contract, ours, out);
  compareDeclared(operation, declaredHeaders(contract, path, method), declaredHeaders(ours, path, method), additions, contract, ours, out);
  return out;
}
