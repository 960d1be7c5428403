import { stringify } from 'safe-stable-stringify';
import { sha256Hex } from '../simulator/random.js';

export { sha256Hex };

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
