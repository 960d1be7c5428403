import { stringify } from 'safe-stable-stringify';
import { sha256Hex } from '../simulator/random.js';

export { sha256Hex };

/*
 * The server's rules for JSON text: how deep what it parses may nest, and the canonical form (and
 * hash) of a value, so that equal values hash alike whatever their key order.
 */

/** How deep arrays and objects may nest in JSON the server reads from a client or a file. */
export const MAX_JSON_DEPTH = 64;

export const TOO_DEEP = `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects, this server's limit`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const [OPEN_ARRAY, OPEN_OBJECT, CLOSE_ARRAY, CLOSE_OBJECT] = [0x5b, 0x7b, 0x5d, 0x7d];

/**
 * Whether valid JSON text nests deeper than MAX_JSON_DEPTH. JSON.parse itself takes any depth,
 * but every walk of the value it builds (the duplicate-key check, canonical hashing,
 * JSON.stringify of an answer) recurses once per level and overflows the stack a few thousand
 * levels down: a 500 for what a client sent. One pass over the characters, strings skipped,
 * and none at all for a text too short to nest that deep.
 */
export function nestsTooDeep(text: string): boolean {
  if (text.length <= MAX_JSON_DEPTH) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/**
 * Canonical JSON (keys sorted at every depth) so that hashes of equal values are equal whatever
 * the key order a client used. safe-stable-stringify (a declared dependency, and pino's own, so
 * one copy installed) is a maintained, deterministic stringify; hand-sorting would be one more
 * thing to get wrong.
 */
export const canonicalJson = (value: unknown): string => stringify(value) ?? 'null';

export const canonicalSha256 = (value: unknown): string => sha256Hex(canonicalJson(value));

/**
 * canonicalJson of objects whose keys are among `keys`, written without sorting on every call:
 * the keys are sorted once and each present value written in that order, a string or a finite
 * number as JSON.stringify would (what canonicalJson writes for them too), anything else by
 * canonicalJson. An absent or undefined value is left out, as both leave it out. Sorting per
 * event was a twentieth of materialising a run (bench/, materialise profile). The keys are asked
 * for on the first call: they are read from a wire schema, which a writer made at load would
 * build at every start (openapi/lazy.ts).
 */
export function canonicalJsonOf<T extends object>(keys: () => readonly string[]): (value: T) => string {
  let sorted: string[] | undefined;
  let names: string[] = [];
  return (value) => {
    if (sorted === undefined) {
      sorted = [...keys()].sort();
      names = sorted.map((key) => `${JSON.stringify(key)}:`);
    }
    let text = '';
    for (let i = 0; i < sorted.length; i++) {
      const v = (value as Record<string, unknown>)[sorted[i]];
      if (v === undefined) continue;
      const json = typeof v === 'string' ? JSON.stringify(v) : typeof v === 'number' && Number.isFinite(v) ? String(v) : canonicalJson(v);
      text += (text ? ',' : '{') + names[i] + json;
    }
    return text ? `${text}}` : '{}';
  };
}
