import { readFileSync } from 'node:fs';
import { nestsTooDeep, TOO_DEEP } from './json-depth.js';

/** The file's text and its value; any failure becomes the caller's own error, naming the file. */
function parseFile(path: string, fail: (message: string) => Error): { text: string; value: unknown } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw fail(`${path}: cannot read: ${(err as Error).message}`);
  }
  try {
    return { text, value: JSON.parse(text) };
  } catch (err) {
    throw fail(`${path}: not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Reads a JSON file an operator named (a catalog, a scenario). Any failure becomes the caller's
 * own error type, with the file in the message, so a start-up mistake reads as one line.
 */
export function readJsonFile(path: string, fail: (message: string) => Error): unknown {
  const { text, value } = parseFile(path, fail);
  if (nestsTooDeep(text)) throw fail(`${path}: ${TOO_DEEP}`);
  return value;
}

/**
 * Reads a JSON file the package ships (the built-in catalog), whose depth the tests check once
 * (test/domain/catalog.test.ts): the character scan, run before the JIT has seen it, took 1-2 ms
 * of every start for 18 KB that no operator can change.
 */
export function readShippedJsonFile(path: string, fail: (message: string) => Error): unknown {
  return parseFile(path, fail).value;
}
