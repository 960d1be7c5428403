import { readFileSync } from 'node:fs';

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
  try {
    return JSON.parse(text);
  } catch (err) {
    throw fail(`${path}: not valid JSON: ${(err as Error).message}`);
  }
}
