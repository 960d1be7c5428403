/**
 * Compares two JSON Schema documents component by component, structurally: property names,
 * required properties, open vs closed, and per property its JSON types, enum/const values, the
 * components it references, its items, map values and inline object shape. Spelling differences
 * that mean the same are normalised away: `type: [x, "null"]` vs `anyOf [x, {type: null}]`,
 * `const` vs a one-value `enum`, a oneOf of closed objects vs one object with a oneOf on the side.
 *
 * Validation keywords (bounds, patterns, formats, annotations) are checked one way: where the
 * contract states one, the other side must state the same value; zod may add its own (e.g. the
 * safe-integer bounds of z.int() or the pattern behind format date-time).
 */

type Json = Record<string, any>;
type Components = Record<string, Json>;

const ONE_WAY_KEYWORDS = [
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'default',
  'deprecated',
  'readOnly',
  'contentEncoding',
];

interface Facets {
  types: Set<string>;
  values: Set<string>;
  refs: Set<string>;
  keywords: Map<string, Set<string>>;
  items?: Facets;
  entries?: Facets;
  shape?: Shape;
}

interface Shape {
  properties: Map<string, Facets>;
  required: Set<string>;
  closed: boolean;
}

const REF = /^#\/components\/schemas\/(.+)$/;

const refName = (schema: Json): string | undefined => REF.exec(schema.$ref ?? '')?.[1];

/** The schema and every branch of its anyOf/oneOf, recursively (references are not followed). */
function alternatives(schema: Json): Json[] {
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])] as Json[];
  return [schema, ...branches.flatMap(alternatives)];
}

const typesOf = (schema: Json): string[] => (schema.type === undefined ? [] : [schema.type].flat());

const isObjectShape = (schema: Json) => typesOf(schema).includes('object') && schema.properties !== undefined;

/** A map's value schema; `additionalProperties: {}` (anything) is no constraint at all. */
const entrySchema = (schema: Json): Json | undefined => {
  const ap = schema.additionalProperties;
  return ap && typeof ap === 'object' && Object.keys(ap).length > 0 ? ap : undefined;
};

class Reader {
  constructor(private readonly components: Components) {}

  /** JSON types a schema admits, following references. */
  private ownTypes(schema: Json, seen = new Set<string>()): string[] {
    return alternatives(schema).flatMap((alt) => {
      const name = refName(alt);
      if (name === undefined) return [...typesOf(alt), ...(isUnionOfObjects(alt) ? ['object'] : [])];
      if (seen.has(name)) return [];
      seen.add(name);
      return this.ownTypes(this.components[name] ?? {}, seen);
    });
  }

  facets(schema: Json): Facets {
    const facets: Facets = { types: new Set(), values: new Set(), refs: new Set(), keywords: new Map() };
    const items: Json[] = [];
    const entries: Json[] = [];
    const shapes: Json[] = [];
    for (const alt of alternatives(schema)) {
      const name = refName(alt);
      if (name !== undefined) {
        facets.refs.add(name);
        for (const type of this.ownTypes(alt)) facets.types.add(type);
        continue;
      }
      for (const type of typesOf(alt)) facets.types.add(type);
      if ('const' in alt) facets.values.add(JSON.stringify(alt.const));
      for (const value of alt.enum ?? []) facets.values.add(JSON.stringify(value));
      for (const keyword of ONE_WAY_KEYWORDS) {
        if (!(keyword in alt)) continue;
        const seen = facets.keywords.get(keyword) ?? new Set<string>();
        seen.add(JSON.stringify(alt[keyword]));
        facets.keywords.set(keyword, seen);
      }
      if (alt.items) items.push(alt.items);
      const entry = entrySchema(alt);
      if (entry) entries.push(entry);
      if (isObjectShape(alt)) shapes.push(alt);
    }
    if (items.length > 0) facets.items = this.facets({ anyOf: items });
    if (entries.length > 0) facets.entries = this.facets({ anyOf: entries });
    if (shapes.length > 0) facets.shape = this.shape(shapes);
    return facets;
  }

  /** One object shape out of one or more object branches (a oneOf of closed objects, say). */
  private shape(objects: Json[]): Shape {
    const byName = new Map<string, Json[]>();
    for (const object of objects) {
      for (const [name, schema] of Object.entries<Json>(object.properties)) {
        byName.set(name, [...(byName.get(name) ?? []), schema]);
      }
    }
    const required = objects
      .map((o) => new Set<string>(o.required ?? []))
      .reduce((a, b) => new Set([...a].filter((name) => b.has(name))));
    return {
      properties: new Map([...byName].map(([name, schemas]) => [name, this.facets({ anyOf: schemas })])),
      required,
      closed: objects.every((o) => o.additionalProperties === false),
    };
  }

  /** A component's own object shape: its properties, else the merged shapes of its object branches. */
  componentShape(name: string): Shape | undefined {
    const schema = this.components[name];
    if (!schema) return undefined;
    if (isObjectShape(schema)) return this.shape([schema]);
    const branches = alternatives(schema).slice(1).filter(isObjectShape);
    return branches.length > 0 ? this.shape(branches) : undefined;
  }
}

function isUnionOfObjects(schema: Json): boolean {
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])] as Json[];
  return schema.type === undefined && branches.length > 0 && branches.every((b) => typesOf(b).includes('object'));
}

const show = (set: Set<string>) => `[${[...set].sort().join(', ')}]`;
const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));

interface CompareOptions {
  /** `Component.property` paths whose contract enum is deliberately not reproduced. */
  relaxedEnums?: ReadonlySet<string>;
}

/** Mismatches between the contract's component `name` and ours, as `Component.property: ...` lines. */
export function compareComponent(
  name: string,
  contract: Components,
  ours: Components,
  options: CompareOptions = {},
): string[] {
  const want = new Reader(contract).componentShape(name);
  const got = new Reader(ours).componentShape(name);
  if (!want) return [`${name}: not an object in the contract`];
  if (!got) return [`${name}: missing, or not an object, in the zod document`];
  const out: string[] = [];
  compareShape(name, want, got, options.relaxedEnums ?? new Set(), out);
  return out;
}

/** Mismatches between one inline schema of the contract (a parameter's, a header's) and ours. */
export function compareSchema(path: string, want: Json, got: Json, contract: Components, ours: Components): string[] {
  const out: string[] = [];
  compareFacets(path, new Reader(contract).facets(want), new Reader(ours).facets(got), new Set(), out);
  return out;
}

function compareShape(path: string, want: Shape, got: Shape, relaxed: ReadonlySet<string>, out: string[]): void {
  for (const name of want.properties.keys()) if (!got.properties.has(name)) out.push(`${path}.${name}: missing`);
  for (const name of got.properties.keys()) if (!want.properties.has(name)) out.push(`${path}.${name}: not in the contract`);
  if (!sameSet(want.required, got.required)) {
    out.push(`${path}: required ${show(got.required)}, contract ${show(want.required)}`);
  }
  if (want.closed !== got.closed) {
    out.push(`${path}: ${got.closed ? 'closed' : 'open'}, contract ${want.closed ? 'closed' : 'open'}`);
  }
  for (const [name, facets] of want.properties) {
    const other = got.properties.get(name);
    if (other) compareFacets(`${path}.${name}`, facets, other, relaxed, out);
  }
}

function compareFacets(path: string, want: Facets, got: Facets, relaxed: ReadonlySet<string>, out: string[]): void {
  if (!sameSet(want.types, got.types)) out.push(`${path}: type ${show(got.types)}, contract ${show(want.types)}`);
  if (relaxed.has(path)) {
    if (got.values.size > 0) out.push(`${path}: relaxed enum still present ${show(got.values)}`);
  } else if (!sameSet(want.values, got.values)) {
    out.push(`${path}: values ${show(got.values)}, contract ${show(want.values)}`);
  }
  if (!sameSet(want.refs, got.refs)) out.push(`${path}: references ${show(got.refs)}, contract ${show(want.refs)}`);
  for (const [keyword, values] of want.keywords) {
    const other = got.keywords.get(keyword) ?? new Set<string>();
    if (!sameSet(values, other)) out.push(`${path}: ${keyword} ${show(other)}, contract ${show(values)}`);
  }
  compareNested(`${path}[]`, want.items, got.items, relaxed, out);
  compareNested(`${path}{}`, want.entries, got.entries, relaxed, out);
  if (want.shape || got.shape) {
    if (!want.shape || !got.shape) out.push(`${path}: inline object ${got.shape ? 'present' : 'absent'}, contract ${want.shape ? 'present' : 'absent'}`);
    else compareShape(path, want.shape, got.shape, relaxed, out);
  }
}

function compareNested(path: string, want: Facets | undefined, got: Facets | undefined, relaxed: ReadonlySet<string>, out: string[]): void {
  if (!want && !got) return;
  if (!want || !got) out.push(`${path}: ${got ? 'present' : 'absent'}, contract ${want ? 'present' : 'absent'}`);
  else compareFacets(path, want, got, relaxed, out);
}
