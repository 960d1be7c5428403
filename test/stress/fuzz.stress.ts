import t from 'tap';
import { fuzz, fuzzTarget } from '../helpers/fuzz.js';
import { startServer } from '../helpers/server.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);

t.test(`${RUNS} hostile requests across every route: never a 5xx, always the envelope, still up`, async (t) => {
  const s = await startServer(t, { clock: 'manual' });
  const target = await fuzzTarget(s);
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  t.comment(`seed ${seed} (FUZZ_SEED=${seed} repeats this run)`);
  const problems = await fuzz(target, RUNS, seed);
  t.same(problems.slice(0, 20), [], `${problems.length} problems`);
  t.equal((await s.call('GET', '/healthz', { key: null })).status, 200, 'the server is still up');
});
