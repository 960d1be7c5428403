import { z } from 'zod';

/**
 * Quick acceptance, compiled from a schema once: a predicate true only when the schema would
 * accept the value and return it unchanged, so a value the server made itself may be used as it
 * is; false decides nothing (parse it then). It follows the schema's own definition (fields,
 * enums, literals, numeric bounds), so a field the schema gains is covered without a second list;
 * what it cannot read (a refinement is an opaque function) answers false unless the builder of
 * that schema registered a predicate for it in `plainChecks`.
 */
export type Plain = (value: unknown) => boolean;

/** Predicates for schemas whose rules are refinements, registered by the builders in primitives.ts. */
export const plainChecks = z.registry<{ plain: Plain }>();

const never: Plain = () => false;

type Def = z.core.$ZodTypeDef & Record<string, unknown>;
type Check = { _zod: { def: { check: string; value?: unknown; inclusive?: boolean; format?: string } } };

export function plain(schema: z.core.$ZodType): Plain {
  // Only the very schema registered: get() would also answer for one derived from it (a further
  // .min(), say), whose rules the predicate does not know.
  if (plainChecks.has(schema as z.ZodType)) return plainChecks.get(schema as z.ZodType)!.plain;
  const def = schema._zod.def as Def;
  switch (def.type) {
    case 'enum': {
      const values = new Set(Object.values(def.entries as Record<string, unknown>));
      return (v) => values.has(v);
    }
    case 'literal': {
      const values = new Set(def.values as unknown[]);
      return (v) => values.has(v);
    }
    case 'number':
      return plainNumber(def);
    case 'object':
      return plainObject(def);
    case 'union':
      return typeof def.discriminator === 'string' ? plainDiscriminated(def.discriminator, def.options as z.ZodObject[]) : never;
    default:
      return never;
  }
}

/** Finite (a safe integer for z.int() or .int()) within every bound; any other kind of check is not read. */
function plainNumber(def: Def): Plain {
  let min = -Infinity;
  let max = Infinity;
  let integer = def.format === 'safeint';
  if (def.format !== undefined && !integer) return never;
  for (const check of (def.checks ?? []) as Check[]) {
    const { check: kind, value, inclusive, format } = check._zod.def;
    if (kind === 'number_format' && format === 'safeint') {
      integer = true;
      continue;
    }
    if (!inclusive || typeof value !== 'number') return never;
    if (kind === 'greater_than') min = Math.max(min, value);
    else if (kind === 'less_than') max = Math.min(max, value);
    else return never;
  }
  return (v) => typeof v === 'number' && (integer ? Number.isSafeInteger(v) : Number.isFinite(v)) && v >= min && v <= max;
}

/**
 * Only the object's own fields, each plain, every required one present, none set to undefined
 * (an optional field is absent or plain). A check on the object as a whole is not read.
 */
function plainObject(def: Def): Plain {
  if ((def.checks as unknown[] | undefined)?.length) return never;
  const fields = new Map<string, Plain>();
  const required: string[] = [];
  for (const [key, field] of Object.entries(def.shape as Record<string, z.core.$ZodType>)) {
    const optional = field._zod.def.type === 'optional';
    fields.set(key, plain(optional ? (field._zod.def as z.core.$ZodOptionalDef).innerType : field));
    if (!optional) required.push(key);
  }
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
    const record = v as Record<string, unknown>;
    for (const key in record) {
      const field = fields.get(key);
      if (field === undefined || !field(record[key])) return false;
    }
    // Every key present passed its check, so none is undefined: a required one that is, is absent.
    for (let i = 0; i < required.length; i++) if (record[required[i]] === undefined) return false;
    return true;
  };
}

/** The option the discriminator names, plain. */
function plainDiscriminated(discriminator: string, options: z.ZodObject[]): Plain {
  const byValue = new Map<unknown, Plain>();
  for (const option of options) {
    const tag = option.shape[discriminator]?._zod.def as Def | undefined;
    if (tag?.type !== 'literal') return never;
    for (const value of tag.values as unknown[]) byValue.set(value, plain(option));
  }
  return (v) => typeof v === 'object' && v !== null && (byValue.get((v as Record<string, unknown>)[discriminator])?.(v) ?? false);
}

/** Every key an object schema, or any option of a union of them, names: for code that writes such values. */
export function keysOf(schema: z.core.$ZodType): string[] {
  const def = schema._zod.def as Def;
  if (def.type === 'object') return Object.keys(def.shape as object);
  if (def.type === 'union') return [...new Set((def.options as z.core.$ZodType[]).flatMap(keysOf))];
  throw new Error(`keysOf: a ${def.type} schema has no keys`);
}
