import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Finding } from './findings.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object's type.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

type Node = Record<string, unknown>;
type Schema = Node | boolean;

/** Keywords that look into children; the walker follows these itself, so local checks drop them. */
const STRUCTURAL = new Set([
  '$ref', 'properties', 'additionalProperties', 'patternProperties', 'items', 'prefixItems',
  'anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else', 'contains', 'dependentSchemas',
  'unevaluatedProperties', 'unevaluatedItems',
]);

const DOC_ID = 'nodus-mock-openapi';

export const escapePointer = (part: string) => part.replaceAll('~', '~0').replaceAll('/', '~1');

const isNode = (s: unknown): s is Node => typeof s === 'object' && s !== null && !Array.isArray(s);
const isPlainObject = (v: unknown): v is Record<string, unknown> => isNode(v);

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * A value worth showing in a finding: enum words are short identifiers. Anything else (a long
 * string could be a token) is described by its type only.
 */
function show(value: unknown): string {
  if (typeof value === 'string') return /^[\w.:-]{1,40}$/.test(value) && !/^[0-9a-f]{16,}$/i.test(value) ? JSON.stringify(value) : `a string of ${value.length} characters`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return `an ${jsonType(value)}`;
}

/**
 * Every object schema with `properties` stops refusing other keys: the walker reports unknown
 * fields as new (information), so validating a branch of `anyOf` must not fail on them.
 */
function openCopy(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openCopy);
  if (!isNode(schema)) return schema;
  const out: Node = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'additionalProperties' && v === false) continue;
    // Example values are data, not schemas: left as they are.
    out[k] = k === 'example' || k === 'examples' || k === 'enum' || k === 'const' ? v : openCopy(v);
  }
  return out;
}

/**
 * Checks answers against one OpenAPI document (3.1, or 3.0 with `nullable`): the walker descends
 * the schema and the value together, so each finding carries the JSON pointer of the value it is
 * about, and a field the schema does not name is reported as new rather than as a failure.
 */
export class SchemaChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly doc: Node;
  private readonly local = new Map<string, ValidateFunction | null>();
  private readonly whole = new Map<string, ValidateFunction>();

  constructor(document: Node) {
    addFormats(this.ajv);
    this.doc = openCopy(document) as Node;
    this.ajv.addSchema({ ...this.doc, $id: DOC_ID });
  }

  /** The schema at a JSON pointer of the document (`/components/schemas/Asset`). */
  at(pointer: string): Schema | undefined {
    let node: unknown = this.doc;
    for (const raw of pointer.split('/').slice(1)) {
      const part = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      if (!isNode(node) && !Array.isArray(node)) return undefined;
      node = (node as Record<string, unknown>)[part];
    }
    return typeof node === 'boolean' || isNode(node) ? node : undefined;
  }

  /** Findings (without the operation) for `value` against the schema at `schemaPointer`. */
  check(schemaPointer: string, value: unknown): Omit<Finding, 'operation'>[] {
    const out: Omit<Finding, 'operation'>[] = [];
    this.walk(schemaPointer, value, '', out, 0);
    return out;
  }

  private walk(sp: string, value: unknown, vp: string, out: Omit<Finding, 'operation'>[], depth: number): void {
    const schema = this.at(sp);
    // A schema too deep to be the document's (a $ref cycle meeting an answer as deep) stops here.
    if (schema === undefined || schema === true || depth > 64) return;
    if (schema === false) {
      out.push({ pointer: vp || '/', kind: 'constraint', message: 'the document allows no value here' });
      return;
    }
    if (value === null && schema.nullable === true) return;
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/')) this.walk(schema.$ref.slice(1), value, vp, out, depth + 1);
    if (!this.checkLocal(sp, schema, value, vp, out)) return;
    if (Array.isArray(schema.allOf)) schema.allOf.forEach((_, i) => this.walk(`${sp}/allOf/${i}`, value, vp, out, depth + 1));
    for (const key of ['anyOf', 'oneOf'] as const) {
      const alternatives = schema[key];
      if (!Array.isArray(alternatives)) continue;
      const branch = this.choose(`${sp}/${key}`, alternatives.length, value);
      if (branch === undefined) out.push(this.noAlternative(`${sp}/${key}`, alternatives.length, value, vp));
      else this.walk(branch, value, vp, out, depth + 1);
    }
    if (isPlainObject(value)) this.walkObject(sp, schema, value, vp, out, depth);
    if (Array.isArray(value) && isNode(schema.items)) value.forEach((item, i) => this.walk(`${sp}/items`, item, `${vp}/${i}`, out, depth + 1));
  }

  private walkObject(sp: string, schema: Node, value: Record<string, unknown>, vp: string, out: Omit<Finding, 'operation'>[], depth: number): void {
    const properties = isNode(schema.properties) ? schema.properties : undefined;
    // `additionalProperties` with keywords of its own is a map's value schema; `{}` beside named
    // properties is a loose object, whose other keys the document still does not know.
    const mapValues = isNode(schema.additionalProperties) && Object.keys(schema.additionalProperties).length > 0;
    for (const key of Object.keys(value)) {
      const child = `${vp}/${escapePointer(key)}`;
      if (properties && Object.hasOwn(properties, key)) this.walk(`${sp}/properties/${escapePointer(key)}`, value[key], child, out, depth + 1);
      else if (mapValues) this.walk(`${sp}/additionalProperties`, value[key], child, out, depth + 1);
      else if (properties) out.push({ pointer: child, kind: 'new', message: 'a field the document does not know' });
    }
  }

  /** The keywords of this schema that do not look into children; false when the type is wrong. */
  private checkLocal(sp: string, schema: Node, value: unknown, vp: string, out: Omit<Finding, 'operation'>[]): boolean {
    const validate = this.localValidator(sp, schema);
    if (!validate || validate(value)) return true;
    const errors = validate.errors ?? [];
    const typeError = errors.find((e) => e.keyword === 'type');
    if (typeError) {
      out.push({ pointer: vp || '/', kind: 'type', message: `expected ${[typeError.params.type].flat().join(' or ')}, got ${jsonType(value)}` });
      return false;
    }
    for (const e of errors) out.push(this.describe(e, value, vp));
    return true;
  }

  private localValidator(sp: string, schema: Node): ValidateFunction | null {
    let validate = this.local.get(sp);
    if (validate !== undefined) return validate;
    const own = Object.fromEntries(Object.entries(schema).filter(([k]) => !STRUCTURAL.has(k)));
    validate = Object.keys(own).length === 0 ? null : this.ajv.compile(own);
    this.local.set(sp, validate);
    return validate;
  }

  private describe(e: ErrorObject, value: unknown, vp: string): Omit<Finding, 'operation'> {
    const at = vp || '/';
    switch (e.keyword) {
      case 'required':
        return { pointer: `${vp}/${escapePointer(String(e.params.missingProperty))}`, kind: 'missing', message: 'missing' };
      case 'enum':
        return { pointer: at, kind: 'enum', message: `${show(value)} is not one of ${(e.params.allowedValues as unknown[]).map(show).join(', ')}` };
      case 'const':
        return { pointer: at, kind: 'enum', message: `${show(value)} is not ${show(e.params.allowedValue)}` };
      case 'format':
        return { pointer: at, kind: 'format', message: `not a ${String(e.params.format)}` };
      default:
        return { pointer: at, kind: 'constraint', message: e.message ?? e.keyword };
    }
  }

  /** The first alternative the value fits; else the first of the right type, to say what is wrong inside it. */
  private choose(sp: string, count: number, value: unknown): string | undefined {
    const branches = Array.from({ length: count }, (_, i) => `${sp}/${i}`);
    const fits = branches.find((b) => this.wholeValidator(b)(value));
    if (fits !== undefined) return fits;
    return branches.find((b) => this.rightType(b, value));
  }

  private rightType(sp: string, value: unknown): boolean {
    const schema = this.at(sp);
    if (!isNode(schema)) return schema === true;
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/')) return this.rightType(schema.$ref.slice(1), value);
    const validate = this.localValidator(sp, schema);
    return !validate || validate(value) || !(validate.errors ?? []).some((e) => e.keyword === 'type' || e.keyword === 'enum' || e.keyword === 'const');
  }

  private noAlternative(sp: string, count: number, value: unknown, vp: string): Omit<Finding, 'operation'> {
    const words = Array.from({ length: count }, (_, i) => this.at(`${sp}/${i}`)).flatMap((s) => {
      if (!isNode(s)) return [];
      if ('const' in s) return [s.const];
      return Array.isArray(s.enum) ? s.enum : [];
    });
    // A word of the value's own type among the alternatives: the value is a new word, not a new type.
    if (words.some((w) => jsonType(w) === jsonType(value))) {
      return { pointer: vp || '/', kind: 'enum', message: `${show(value)} is not one of ${words.map(show).join(', ')}` };
    }
    return { pointer: vp || '/', kind: 'type', message: `${show(value)} matches none of the ${count} forms the document allows` };
  }

  private wholeValidator(sp: string): ValidateFunction {
    let validate = this.whole.get(sp);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOC_ID}#${sp}` });
      this.whole.set(sp, validate);
    }
    return validate;
  }
}
