import { readFileSync } from 'node:fs';
import { nestsTooDeep, TOO_DEEP } from './json-depth.js';

/**
 * Reads a JSON file an operator named (a catalog, a scenario). Any failure becomes the caller's
 * own error type, with the file in the message, so a start-up mistake reads as one line.
 */
export function readJsonFile(path: string, fail: (message: string) => Error): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw fail(`${path}: cannot read: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw fail(`${path}: not valid JSON: ${(err as Error).message}`);
  }
  if (nestsTooDeep(text)) throw fail(`${path}: ${TOO_DEEP}`);
  return value;
}
