import t from '../helpers/tap.js';
import { fuzz, fuzzTarget } from '../helpers/fuzz.js';
import { startServer } from '../helpers/server.js';

t.test('500 hostile requests across every route: never a 5xx, always the envelope with a status the document lists, still up', async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  const target = await fuzzTarget(s);
  const problems = await fuzz(target, 500, 20261130);
  t.same(problems.slice(0, 20), [], `${problems.length} problems`);
  t.equal((await s.call('GET', '/healthz', { key: null })).status, 200, 'the server is still up');
  t.equal((await s.call('GET', `/v1/workloads/${target.workloadId}`, { key: target.ownerKey })).status, 200);
});
