import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * RL event cursors (design decision 8): opaque, at most 64 characters, minted by the server for
 * one workload. `c1.<seq base36>.<mac>`: the MAC binds the position to the workload, so another
 * workload's cursor or an edited one is refused instead of silently paging the wrong rows.
 */
const PREFIX = 'c1';

/** The name of the server secret cursors are keyed by (server_settings). */
export const CURSOR_SECRET = 'cursor';
const MAC_CHARS = 22;

function mac(secret: Buffer, workloadId: string, seq: number): string {
  return createHmac('sha256', secret).update(`${workloadId}\n${seq}`).digest('base64url').slice(0, MAC_CHARS);
}

export function mintCursor(secret: Buffer, workloadId: string, seq: number): string {
  return `${PREFIX}.${seq.toString(36)}.${mac(secret, workloadId, seq)}`;
}

/** The row position a cursor stands for, or undefined when this server did not mint it for this workload. */
export function readCursor(secret: Buffer, workloadId: string, cursor: string): number | undefined {
  if (cursor.length > 64) return undefined;
  const parts = cursor.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX || !/^[0-9a-z]{1,11}$/.test(parts[1])) return undefined;
  const seq = parseInt(parts[1], 36);
  if (!Number.isSafeInteger(seq)) return undefined;
  const expected = Buffer.from(mac(secret, workloadId, seq));
  const given = Buffer.from(parts[2]);
  return given.length === expected.length && timingSafeEqual(given, expected) ? seq : undefined;
}
