import fc from 'fast-check';
import type { z } from 'zod';

/**
 * fast-check arbitraries generated from a zod schema, so a property covers every field the schema
 * has, one it gains included, without a list of its own. The leaves are the caller's: a property
 * decides what text and numbers to try (valid ones, hostile ones, ones around a limit), given the
 * limits the schema states. zod-fast-check, the library that did this, supports zod 3 and
 * fast-check 3 only; and no generic generator knows the edges these properties aim at.
 */
export interface Leaves {
  /** Text for a string schema of these lengths (refinements are not visible: bytes, controls). */
  text(limits: { minLength: number; maxLength: number }): fc.Arbitrary<unknown>;
  /** A number for a number schema with these bounds. */
  number(limits: { min: number; max: number; integer: boolean }): fc.Arbitrary<unknown>;
  /** One of an enum's or a literal's values. */
  choice(values: readonly unknown[]): fc.Arbitrary<unknown>;
}

type Def = z.core.$ZodTypeDef & Record<string, any>;

export function arbitraryOf(schema: z.core.$ZodType, leaves: Leaves): fc.Arbitrary<unknown> {
  const def = schema._zod.def as Def;
  const s = schema as any;
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.core.$ZodType>;
      const fields = Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, arbitraryOf(field, leaves)]));
      const requiredKeys = Object.keys(shape).filter((key) => shape[key]._zod.def.type !== 'optional');
      return fc.record(fields, { requiredKeys });
    }
    case 'optional':
      return arbitraryOf(def.innerType, leaves);
    case 'union':
      return fc.oneof(...(def.options as z.core.$ZodType[]).map((option) => arbitraryOf(option, leaves)));
    case 'enum':
      return leaves.choice(s.options);
    case 'literal':
      return leaves.choice([...def.values]);
    case 'string':
      return leaves.text({ minLength: s.minLength ?? 0, maxLength: s.maxLength ?? Infinity });
    case 'number':
      return leaves.number({ min: s.minValue ?? -Infinity, max: s.maxValue ?? Infinity, integer: Boolean(s.isInt) });
    case 'boolean':
      return fc.boolean();
    default:
      throw new Error(`arbitraryOf: no arbitrary for a ${def.type} schema yet; add one here`);
  }
}
