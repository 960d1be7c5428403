import t from '../helpers/tap.js';
import { fromBase62, newAssetId, newConnectionId, newFaultId, newSecretId, newWorkloadId, newWorkloadRuleId, serverIdPattern, toBase62, webhookMessageId, type ServerIdKind } from '../../server/domain/ids.js';

t.test('every generator writes ids of its kind\'s pattern, the one a lookup and a snapshot fork match', async (t) => {
  const generators: Record<ServerIdKind, () => string> = {
    wl: newWorkloadId,
    asset: newAssetId,
    sec: newSecretId,
    conn: newConnectionId,
    flt: newFaultId,
    wr: newWorkloadRuleId,
    msg: () => webhookMessageId('wl_0000000000000000000A', 'workload.running', 1),
  };
  for (const [kind, generate] of Object.entries(generators) as [ServerIdKind, () => string][]) {
    const id = generate();
    t.match(id, serverIdPattern(kind), `${kind}: ${id}`);
  }
});

t.test('workload ids sort in creation order: their leading digits are the wall-clock millisecond', async (t) => {
  const now = Date.now();
  t.equal(fromBase62(newWorkloadId().slice(3, 11)) >= BigInt(now), true);
  t.equal(toBase62(61n, 2), '0z');
  t.equal(fromBase62('0z'), 61n);
});
