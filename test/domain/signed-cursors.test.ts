import t from '../helpers/tap.js';
import { computeAfter, mintComputeCursor } from '../../server/domain/compute/cursors.js';
import { mintCursor, positionAfter } from '../../server/domain/evidence/cursors.js';
import { refusal } from '../helpers/domain.js';

// Cursors outlive the server that minted them (a snapshot restores its tenant's cursor key), so
// each kind's bytes are pinned: these were minted by the two implementations before they became one.
const secret = Buffer.alloc(32, 7);
const WL = 'wl_0000000000000000000A';
const EVENT_CURSOR = 'c1.ya.8wFoeMPOhRkFPoXmERIReh';
const COMPUTE_CURSOR = 'p1.WzE3MDAwMDAwMDAwMDAsIndsX2FiYyJd.e8EdRLoBxqxfRH8clOI-aC';

t.test('an RL event or log cursor: c1, the sequence in base 36, the MAC over the workload and the sequence', async (t) => {
  t.equal(mintCursor(secret, WL, 1234), EVENT_CURSOR);
  t.equal(positionAfter(secret, WL, EVENT_CURSOR, 'this workload'), 1234);
  t.equal(positionAfter(secret, WL, '', 'this workload'), 0, 'no cursor is the beginning');
  for (const cursor of [`${EVENT_CURSOR}x`, EVENT_CURSOR.replace('ya', 'yb'), `c1.${'0'.repeat(12)}.${EVENT_CURSOR.split('.')[2]}`]) {
    t.same(refusal(() => positionAfter(secret, WL, cursor, 'this workload')), { refusal: 'invalid', code: 'invalid_cursor' }, cursor);
  }
  t.same(refusal(() => positionAfter(secret, 'wl_0000000000000000000B', EVENT_CURSOR, 'this workload')), { refusal: 'invalid', code: 'invalid_cursor' }, 'another workload\'s');
});

t.test('a compute page cursor: p1, the position as base64url JSON, the MAC over the scope and that text', async (t) => {
  const after = { createdAtMs: 1_700_000_000_000, key: 'wl_abc' };
  t.equal(mintComputeCursor(secret, 'running', after), COMPUTE_CURSOR);
  t.same(computeAfter(secret, 'running', COMPUTE_CURSOR), after);
  t.equal(computeAfter(secret, 'running', undefined), null);
  t.same(refusal(() => computeAfter(secret, 'done', COMPUTE_CURSOR)), { refusal: 'invalid', code: 'invalid_cursor' }, 'other filters');
  t.same(refusal(() => computeAfter(secret, 'running', 'p1.!!!.x')), { refusal: 'invalid', code: 'invalid_cursor' }, 'no JSON');
  t.same(refusal(() => computeAfter(secret, 'running', EVENT_CURSOR)), { refusal: 'invalid', code: 'invalid_cursor' }, 'another kind');
});
