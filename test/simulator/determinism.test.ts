import t from '../helpers/tap.js';
import { simulate, simulatedOutputs, stateAt, type Intervention } from '../../server/simulator/index.js';
import { events, specFor } from './fixtures.js';

const interventions: Intervention[] = [
  { kind: 'freeze', atMs: specFor().createdAtMs + 400_000 },
  { kind: 'resume', atMs: specFor().createdAtMs + 700_000 },
  { kind: 'recover', atMs: specFor().createdAtMs + 900_000, replayLast: 10 },
];

t.test('the same inputs give byte-identical timelines, states and outputs', async (t) => {
  for (const spec of [specFor(), specFor({ includeTraces: true, mode: 'evaluate', trainingSteps: 0 })]) {
    t.equal(JSON.stringify(simulate(spec, interventions)), JSON.stringify(simulate(structuredClone(spec), [...interventions])));
    const at = spec.createdAtMs + 500_000;
    t.same(stateAt(spec, interventions, at), stateAt(spec, interventions, at));
    const a = simulatedOutputs(spec, []);
    const b = simulatedOutputs(spec, []);
    t.ok(a.length > 0);
    t.same(a.map((o) => o.content.toString('base64')), b.map((o) => o.content.toString('base64')));
  }
});

t.test('interventions are applied in time order whatever order they are given in', async (t) => {
  const spec = specFor();
  t.equal(JSON.stringify(simulate(spec, [...interventions].reverse())), JSON.stringify(simulate(spec, interventions)));
});

t.test('another seed gives other outcomes, times and bytes', async (t) => {
  const a = simulate(specFor({ seed: 1 }), []);
  const b = simulate(specFor({ seed: 2 }), []);
  t.not(a.endAtMs, b.endAtMs, 'durations differ');
  t.notSame(events(a).map((e) => e.outcome), events(b).map((e) => e.outcome), 'outcomes differ');
  const outA = simulatedOutputs(specFor({ seed: 1 }), []);
  const outB = simulatedOutputs(specFor({ seed: 2 }), []);
  for (let i = 0; i < outA.length; i++) {
    if (outA[i].name !== 'adapter_config.json') t.not(outA[i].content.toString('hex'), outB[i].content.toString('hex'), outA[i].name);
  }
});

t.test('the seed alone decides outcomes and durations: two workloads with one seed run alike', async (t) => {
  const a = specFor({ workloadId: 'wl_first', createdAtMs: Date.parse('2026-01-01T00:00:00Z') });
  const b = specFor({ workloadId: 'wl_second', createdAtMs: Date.parse('2026-02-01T08:30:00Z') });
  const ta = simulate(a, []);
  const tb = simulate(b, []);
  t.equal(ta.items.length, tb.items.length);
  t.same(ta.items.map((i) => i.atMs - a.createdAtMs), tb.items.map((i) => i.atMs - b.createdAtMs), 'same relative times');
  const strip = (tl: typeof ta) => events(tl).map(({ event_id: _id, ...rest }) => rest);
  t.same(strip(ta), strip(tb), 'same events apart from the namespaced ids');
  t.not(events(ta)[0].event_id, events(tb)[0].event_id, 'event ids are namespaced by the workload');
});
