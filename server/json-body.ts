import jsonc from 'jsonc-parser';
import { ApiError } from './errors.js';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor']);

/**
 * JSON.parse silently keeps the last of two equal keys, but the contract refuses repeated keys in
 * RL requests, and `__proto__` keys are a prototype-pollution vector. jsonc-parser's visitor
 * (kept by the VS Code team) walks the text once so both are caught before JSON.parse builds the
 * value; the path of the offence goes into the message.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError(400, 'invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
  if (!/[{]/.test(text)) return value;
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
