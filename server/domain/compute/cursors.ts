import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ComputeAfter } from '../../../store/compute.js';
import { DomainError } from '../errors.js';

/**
 * Compute page cursors: `p1.<position>.<mac>`, the position being the last item's creation and id.
 * The MAC binds it to the tenant and the page's filters (or the sweep), so a cursor used with
 * other filters, or edited, is refused rather than paging something else.
 */
const PREFIX = 'p1';
const MAC_CHARS = 22;
export const MAX_CURSOR_CHARS = 512;

const mac = (secret: Buffer, scope: string, position: string) =>
  createHmac('sha256', secret).update(`compute\n${scope}\n${position}`).digest('base64url').slice(0, MAC_CHARS);

export function mintComputeCursor(secret: Buffer, scope: string, after: ComputeAfter): string {
  const position = Buffer.from(JSON.stringify([after.createdAtMs, after.key])).toString('base64url');
  return `${PREFIX}.${position}.${mac(secret, scope, position)}`;
}

/** Where the page starts: the beginning without a cursor, else after the position the cursor names. */
export function computeAfter(secret: Buffer, scope: string, cursor: string | undefined): ComputeAfter | null {
  if (!cursor) return null;
  const refuse = () => new DomainError('invalid', 'invalid_cursor', 'query.cursor: not a cursor this server issued for this listing and these filters; pass next_cursor unchanged with the same filters');
  const parts = cursor.split('.');
  if (parts.length !== 3 || parts[0] !== PREFIX) throw refuse();
  const expected = Buffer.from(mac(secret, scope, parts[1]));
  const given = Buffer.from(parts[2]);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refuse();
  const [createdAtMs, key] = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as [number, string];
  return { createdAtMs, key };
}
