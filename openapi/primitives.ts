import { z } from 'zod';
import { plainChecks } from './plain.js';
import { lazy } from './lazy.js';

/** Building blocks shared by the wire schemas; none of them is a component of its own. */

/** RFC 3339 with `Z` or a numeric offset; documented as `format: date-time`. */
export const dateTime = lazy(() => z.iso.datetime({ offset: true }));

export const sha256Hex = lazy(() => z.string().regex(/^[a-f0-9]{64}$/));

/** A tenant clock's mode; also the server's default (`--clock`). */
export const clockMode = lazy(() => z.enum(['realtime', 'manual']));

/** What an RL run does: train (baseline, training, evaluation) or evaluate only. */
export const runMode = lazy(() => z.enum(['train', 'evaluate']));

/** Lower-case slug the contract uses for environment, example and recipe ids. */
export const slug = lazy(() => z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/));

/** Any JSON object (`type: object`, values unconstrained). */
export const jsonObject = lazy(() => z.record(z.string(), z.unknown()));

// zod documents numeric literals as `type: number`; the contract pins these to `integer`.
export const integerConst = <const V extends number>(value: V) => z.literal(value).meta({ type: 'integer' });
export const integerEnum = <const V extends readonly [number, ...number[]]>(values: V) =>
  z.literal(values).meta({ type: 'integer' });

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

const EDGE_WHITESPACE = /^\s|\s$/;
const CONTROL = /\p{Cc}/u;
const CONTROL_EXCEPT_TAB_AND_LINE_BREAKS = /(?![\t\n\r])\p{Cc}/u;

// The server counts UTF-8 bytes. `.max()` (UTF-16 units, never more than the byte count) stays so
// the generated document still states the contract's maxLength.
const withinBytes = (max: number) => (s: string) => utf8Bytes(s) <= max;

// The quick checks (openapi/plain.ts) of the two text kinds. An identity in printable ASCII,
// where a character is a byte and whitespace a plain range: it starts and ends with a visible
// character; any other identity is left to the refinements. Free text: the control characters
// (\p{Cc}) but tab, CR and LF, as the refinement refuses them, without the Unicode regex.
const ASCII_IDENTITY = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const FREE_TEXT_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;
/** Within `max` UTF-16 units and UTF-8 bytes; a unit is at most 3 bytes, so short text is not measured. */
const fits = (s: string, max: number) => s.length <= max && (s.length * 3 <= max || utf8Bytes(s) <= max);

/** An identity the server compares byte for byte: no edge whitespace, no control characters. */
export const identityText = (maxBytes: number) =>
  z
    .string()
    .min(1)
    .max(maxBytes)
    .refine(withinBytes(maxBytes), `must be at most ${maxBytes} UTF-8 bytes`)
    .refine((s) => !EDGE_WHITESPACE.test(s), 'must not start or end with whitespace')
    .refine((s) => !CONTROL.test(s), 'must not contain control characters')
    .register(plainChecks, { plain: (v) => typeof v === 'string' && v.length <= maxBytes && ASCII_IDENTITY.test(v) });

/** Free text: tab, CR and LF are the only control characters allowed. */
export const freeText = (maxBytes: number) =>
  z
    .string()
    .max(maxBytes)
    .refine(withinBytes(maxBytes), `must be at most ${maxBytes} UTF-8 bytes`)
    .refine((s) => !CONTROL_EXCEPT_TAB_AND_LINE_BREAKS.test(s), 'must not contain control characters other than tab, CR and LF')
    .register(plainChecks, { plain: (v) => typeof v === 'string' && fits(v, maxBytes) && !FREE_TEXT_CONTROL.test(v) });

/**
 * An integer query parameter written in decimal digits only: z.coerce would also take "1e3",
 * "0x10" or " 7". Documented as the integer it stands for. A repeated key reaches the schema as
 * an array (Fastify's query parser) and is refused as such.
 */
export const queryInteger = (min: number, max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : Array.isArray(issue.input) ? 'must be given once' : undefined) })
    .regex(/^[0-9]+$/, 'must be a decimal integer')
    .transform(Number)
    .pipe(z.int().min(min).max(max))
    .meta({ type: 'integer', minimum: min, maximum: max });
