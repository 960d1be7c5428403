import type { ComputeAfter } from '../../../store/compute.js';
import { DomainError } from '../errors.js';
import { signedCursors } from '../signed-cursors.js';

/**
 * Compute page cursors: `p1.<position>.<mac>`, the position being the last item's creation and id
 * (JSON in base64url). The MAC binds it to the page's filters (or the sweep).
 */
const cursors = signedCursors<ComputeAfter>({
  prefix: 'p1',
  write: (after) => Buffer.from(JSON.stringify([after.createdAtMs, after.key])).toString('base64url'),
  read(written) {
    try {
      const [createdAtMs, key] = JSON.parse(Buffer.from(written, 'base64url').toString('utf8')) as [number, string];
      return { createdAtMs, key };
    } catch {
      return undefined;
    }
  },
  signed: (scope, written) => `compute\n${scope}\n${written}`,
});

export const mintComputeCursor = (secret: Buffer, scope: string, after: ComputeAfter): string => cursors.mint(secret, scope, after);

/** Where the page starts: the beginning without a cursor, else after the position the cursor names. */
export function computeAfter(secret: Buffer, scope: string, cursor: string | undefined): ComputeAfter | null {
  if (!cursor) return null;
  const after = cursors.read(secret, scope, cursor);
  if (after === undefined) throw new DomainError('invalid', 'invalid_cursor', 'query.cursor: not a cursor this server issued for this listing and these filters; pass next_cursor unchanged with the same filters');
  return after;
}
