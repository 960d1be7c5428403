import jsonc from 'jsonc-parser';
import { ApiError } from './api-error.js';
import { nestsTooDeep, TOO_DEEP } from '../domain/json-text.js';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

/** A whole JSON string token, escapes included, and the colon that makes it a key. */
const STRING_TOKEN = /"(?:[^"\\]|\\.)*"(\s*:)?/g;

/** How many keys the (valid JSON) text writes. Strings are matched whole, so a match never starts inside one. */
function writtenKeys(text: string): number {
  let keys = 0;
  STRING_TOKEN.lastIndex = 0;
  for (let m = STRING_TOKEN.exec(text); m; m = STRING_TOKEN.exec(text)) if (m[1] !== undefined) keys++;
  return keys;
}

/** The keys of every object in a parsed value; NaN at a forbidden key (JSON.parse makes `__proto__` an own key). */
function parsedKeys(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let keys = 0;
  if (Array.isArray(value)) {
    for (const item of value) keys += parsedKeys(item);
    return keys;
  }
  for (const key of Object.keys(value)) keys += FORBIDDEN_KEYS.has(key) ? NaN : 1 + parsedKeys((value as Record<string, unknown>)[key]);
  return keys;
}

/**
 * JSON.parse silently keeps the last of two equal keys, but the contract refuses repeated keys in
 * RL requests, and `__proto__` keys are a prototype-pollution vector. jsonc-parser's visitor
 * (kept by the VS Code team) walks the text once so both are caught before JSON.parse builds the
 * value; the path of the offence goes into the message.
 *
 * The walk cost several times JSON.parse itself on every POST (bench/, launch profile), so it
 * runs only when a cheap exact test fails: JSON.parse keeps one of two equal keys, so the parsed
 * value holds fewer keys than the text writes exactly when a key repeats in some object.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, 'invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
  if (nestsTooDeep(text)) throw new ApiError(400, 'invalid_json', `request body is ${TOO_DEEP}`);
  if (!/[{]/.test(text) || parsedKeys(value) === writtenKeys(text)) return value;
  const seen: Set<string>[] = [];
  let offence: string | undefined;
  jsonc.visit(text, {
    onObjectBegin: () => {
      seen.push(new Set());
      return offence === undefined;
    },
    onObjectEnd: () => {
      seen.pop();
    },
    onObjectProperty: (property, _o, _l, _sl, _sc, pathSupplier) => {
      if (offence !== undefined) return;
      const keys = seen[seen.length - 1];
      const where = ['body', ...pathSupplier(), property].join('.');
      if (keys.has(property)) offence = `duplicate key at ${where}`;
      else if (FORBIDDEN_KEYS.has(property)) offence = `key "${property}" is not allowed (at ${where})`;
      keys.add(property);
    },
  });
  if (offence !== undefined) throw new ApiError(400, 'invalid_json', offence);
  return value;
}
