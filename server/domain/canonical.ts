import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';

/**
 * Canonical JSON (keys sorted at every depth) so that hashes of equal values are equal whatever
 * the key order a client used. safe-stable-stringify (already under pino) is a maintained,
 * deterministic stringify; hand-sorting would be one more thing to get wrong.
 */
export const canonicalJson = (value: unknown): string => stringify(value) ?? 'null';

export const sha256Hex = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

export const canonicalSha256 = (value: unknown): string => sha256Hex(canonicalJson(value));
