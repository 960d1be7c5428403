import { stringify } from 'safe-stable-stringify';
import { sha256Hex } from '../simulator/random.js';

export { sha256Hex };

/**
 * Canonical JSON (keys sorted at every depth) so that hashes of equal values are equal whatever
 * the key order a client used. safe-stable-stringify (already under pino) is a maintained,
 * deterministic stringify; hand-sorting would be one more thing to get wrong.
 */
export const canonicalJson = (value: unknown): string => stringify(value) ?? 'null';

export const canonicalSha256 = (value: unknown): string => sha256Hex(canonicalJson(value));
