import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Store } from '../../../store/index.js';
import type { SecretName } from '../../../store/settings.js';
import { DomainError } from '../errors.js';

/**
 * RL event cursors: opaque, at most 64 characters (the SDK checks the length), minted by the server for
 * one workload. `c1.<seq base36>.<mac>`: the MAC binds the position to the workload, so another
 * workload's cursor or an edited one is refused instead of silently paging the wrong rows.
 */
const PREFIX = 'c1';

/** The server secret cursors are keyed by. */
export const CURSOR_SECRET: SecretName = 'cursor';
/** Log cursors have their own: an RL event cursor is not a log cursor, even for the same workload. */
export const LOG_CURSOR_SECRET: SecretName = 'log-cursor';
const MAC_CHARS = 22;

/**
 * The key one kind of cursor is signed with for a tenant: derived from the tenant's own cursor key,
 * which its snapshot carries, so a restored tenant (on this server or another) mints and accepts
 * the cursors the original did; the kind goes into the derivation, so an RL event cursor is still
 * no log cursor. A tenant older than these keys has none and keeps the server's secret.
 */
export function cursorSecret(store: Store, tenantId: string, kind: SecretName): Buffer {
  const key = store.tenants.cursorKey(tenantId);
  return key === null ? store.settings.secret(kind) : createHmac('sha256', Buffer.from(key, 'hex')).update(kind).digest();
}

function mac(secret: Buffer, workloadId: string, seq: number): string {
  return createHmac('sha256', secret).update(`${workloadId}\n${seq}`).digest('base64url').slice(0, MAC_CHARS);
}

export function mintCursor(secret: Buffer, workloadId: string, seq: number): string {
  return `${PREFIX}.${seq.toString(36)}.${mac(secret, workloadId, seq)}`;
}

/** The row position a cursor stands for, or undefined when this server did not mint it for this workload. */
function readCursor(secret: Buffer, workloadId: string, cursor: string): number | undefined {
  if (cursor.length > 64) return undefined;
  const parts = cursor.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX || !/^[0-9a-z]{1,11}$/.test(parts[1])) return undefined;
  const seq = parseInt(parts[1], 36);
  if (!Number.isSafeInteger(seq)) return undefined;
  const expected = Buffer.from(mac(secret, workloadId, seq));
  const given = Buffer.from(parts[2]);
  return given.length === expected.length && timingSafeEqual(given, expected) ? seq : undefined;
}

/**
 * Where a page after `after` starts: the beginning when it is empty or absent, else the position
 * of a cursor minted for this workload, else 400 invalid_cursor naming `issuedFor`.
 */
export function positionAfter(secret: Buffer, workloadId: string, after: string | undefined, issuedFor: string): number {
  if (!after) return 0;
  const seq = readCursor(secret, workloadId, after);
  if (seq === undefined) throw new DomainError('invalid', 'invalid_cursor', `query.after: not a cursor this server issued for ${issuedFor}; pass next_cursor unchanged`);
  return seq;
}
