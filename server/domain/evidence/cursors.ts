import { DomainError } from '../errors.js';
import { signedCursors } from '../signed-cursors.js';

/**
 * RL event and log cursors: at most 64 characters (the SDK checks the length), minted for one
 * workload. `c1.<seq base36>.<mac>`, the MAC over the workload id and the sequence number.
 */
const cursors = signedCursors<number>({
  prefix: 'c1',
  maxChars: 64,
  write: (seq) => seq.toString(36),
  read(written) {
    if (!/^[0-9a-z]{1,11}$/.test(written)) return undefined;
    const seq = parseInt(written, 36);
    return Number.isSafeInteger(seq) ? seq : undefined;
  },
  signed: (workloadId, _written, seq) => `${workloadId}\n${seq}`,
});

export const mintCursor = (secret: Buffer, workloadId: string, seq: number): string => cursors.mint(secret, workloadId, seq);

/**
 * Where a page after `after` starts: the beginning when it is empty or absent, else the position
 * of a cursor minted for this workload, else 400 invalid_cursor naming `issuedFor`.
 */
export function positionAfter(secret: Buffer, workloadId: string, after: string | undefined, issuedFor: string): number {
  if (!after) return 0;
  const seq = cursors.read(secret, workloadId, after);
  if (seq === undefined) throw new DomainError('invalid', 'invalid_cursor', `query.after: not a cursor this server issued for ${issuedFor}; pass next_cursor unchanged`);
  return seq;
}
