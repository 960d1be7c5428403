import t from '../helpers/tap.js';
import { isPlainRLEvent } from '../../openapi/rl-evidence.js';
import { rlEventId, simulate, type Intervention, type Timeline } from '../../server/simulator/index.js';
import { componentErrors } from '../helpers/contract.js';
import { CREATED_AT, evaluateSpec, events, rlEvents, specFor } from './fixtures.js';

const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** Timelines that exercise every kind of event: traces on and off, every taskset, interventions. */
function sampleTimelines(): Array<[string, Timeline]> {
  const recover: Intervention[] = [{ kind: 'recover', atMs: CREATED_AT + 420_000, replayLast: 5 }];
  return [
    ['train', simulate(specFor(), [])],
    ['train with traces', simulate(specFor({ includeTraces: true, seed: 7 }), [])],
    ['gsm8k traces', simulate(specFor({ includeTraces: true, taskset: 'openai/gsm8k', seed: 8 }), [])],
    ['graph colouring traces', simulate(evaluateSpec({ includeTraces: true, taskset: 'nodus/graph-coloring@1.0.0', evaluationTasks: 64, seed: 9 }), [])],
    ['other taskset traces', simulate(evaluateSpec({ includeTraces: true, taskset: 'acme/mystery', seed: 10 }), [])],
    ['high error rate', simulate(specFor({ includeTraces: true, simulation: { error_rate: 0.3 } }), [])],
    ['recovered', simulate(specFor(), recover)],
  ];
}

t.test('every emitted event conforms to the contract RLEvent', async (t) => {
  for (const [name, tl] of sampleTimelines()) {
    const errors = events(tl).flatMap((e) => componentErrors('RLEvent', e).map((msg) => `${e.event_id}: ${msg}`));
    t.same(errors, [], name);
    // The materialiser stores these without parsing them again only when the quick check passes.
    t.same(events(tl).filter((e) => !isPlainRLEvent(e)), [], `${name}: isPlainRLEvent`);
    const oversized = events(tl).filter((e) => utf8(JSON.stringify(e)) > 16 * 1024 || [e.input, e.output, e.verifier].some((s) => s !== undefined && (s === '' || utf8(s) > 4096)));
    t.same(oversized, [], `${name}: within byte limits, no empty text`);
    const badText = events(tl).filter((e) => [e.input, e.output, e.verifier, e.message].some((s) => s !== undefined && /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s)));
    t.same(badText, [], `${name}: no control characters other than \\n \\r \\t`);
  }
});

t.test('identity rules per generation', async (t) => {
  for (const [name, tl] of sampleTimelines()) {
    const seenIds = new Set<string>();
    const seenKeys = new Set<string>();
    const started = new Set<string>();
    const problems: string[] = [];
    for (const item of rlEvents(tl)) {
      const e = item.event;
      const idKey = `${item.stageId}|${item.generation}|${e.event_id}`;
      const key = `${item.stageId}|${item.generation}|${e.phase}|${e.task_id}|${e.attempt}|${e.kind}`;
      if (seenIds.has(idKey)) problems.push(`duplicate event_id ${idKey}`);
      if (seenKeys.has(key)) problems.push(`duplicate identity ${key}`);
      seenIds.add(idKey);
      seenKeys.add(key);
      const attemptKey = `${item.generation}|${e.phase}|${e.task_id}|${e.attempt}`;
      if (e.kind === 'task_started') started.add(attemptKey);
      else if (!started.has(attemptKey)) problems.push(`task_completed without an earlier task_started in its generation: ${attemptKey}`);
      if (e.event_id !== rlEventId('wl_sim_test_0001', e.task_id, e.attempt, e.phase, e.kind)) problems.push(`event_id of ${key}`);
    }
    t.same(problems, [], name);
  }
});

t.test('event ids use the SDK emitter encoding', async (t) => {
  // Vectors computed independently with the SDK's formula: sha256 over `<utf8 length>:<part>` for
  // (namespace, task_id, str(attempt), phase, kind), "nre_" + 32 hex digits.
  t.equal(rlEventId('wl_sim_test_0001', 'leg_counting/heldout/0007', 1, 'baseline', 'task_started'), 'nre_34fac721abdcec13a7884aecb68d414b');
  t.equal(rlEventId('wl_ünïcode', 'gsm8k/train/0123', 8, 'training', 'task_completed'), 'nre_edf660e1473142e8cc0911126d1db5a9');
  t.match(rlEventId('a', 'b', 1, 'evaluation', 'task_started'), /^nre_[0-9a-f]{32}$/);
});

t.test('completed events: outcome, reward and duration', async (t) => {
  const tl = simulate(specFor({ simulation: { error_rate: 0.1 } }), []);
  const completed = rlEvents(tl).filter((i) => i.event.kind === 'task_completed');
  const startedAt = new Map(rlEvents(tl).filter((i) => i.event.kind === 'task_started').map((i) => [`${i.event.phase}|${i.event.task_id}|${i.event.attempt}`, i.atMs]));
  const outcomes = new Set(completed.map((i) => i.event.outcome));
  t.same([...outcomes].sort(), ['error', 'failed', 'passed'], 'all three outcomes occur');
  for (const { event: e, atMs } of completed) {
    if (e.outcome === 'passed' && e.reward !== 1) t.fail(`passed with reward ${e.reward}`);
    if (e.outcome === 'failed' && e.reward !== 0) t.fail(`failed with reward ${e.reward}`);
    if (e.outcome === 'error' && (e.reward !== undefined || !e.message)) t.fail('an error has no reward and says why');
    if (e.outcome !== 'error' && e.message !== undefined) t.fail('only errors carry a message');
    if (e.duration_ms !== atMs - startedAt.get(`${e.phase}|${e.task_id}|${e.attempt}`)!) t.fail(`duration_ms of ${e.task_id} is its time from start to end`);
  }
  const training = completed.filter((i) => i.event.phase === 'training').map((i) => i.event.duration_ms!);
  const mean = training.reduce((s, d) => s + d, 0) / training.length;
  t.ok(mean > 4000 && mean < 8000, `training attempts last about seconds_per_attempt (mean ${mean} ms)`);
  const errors = completed.filter((i) => i.event.outcome === 'error').length / completed.length;
  t.ok(errors > 0.05 && errors < 0.16, `error share near error_rate (${errors})`);
  const started = rlEvents(tl).filter((i) => i.event.kind === 'task_started');
  t.ok(started.every((i) => Object.keys(i.event).join() === 'event_id,phase,task_id,attempt,kind'), 'task_started carries only identities');
});

t.test('traces only with includeTraces', async (t) => {
  const without = events(simulate(specFor(), []));
  t.ok(without.every((e) => e.input === undefined && e.output === undefined && e.verifier === undefined), 'none without');
  const withTraces = events(simulate(specFor({ includeTraces: true }), []));
  const completed = withTraces.filter((e) => e.kind === 'task_completed');
  t.ok(completed.every((e) => e.input && e.output && e.verifier), 'every completed event carries all three');
  t.ok(withTraces.filter((e) => e.kind === 'task_started').every((e) => e.input === undefined), 'task_started carries none');
});

t.test('traces agree with outcomes', async (t) => {
  const lastNumber = (text: string) => Number(/(-?\d+)\D*$/.exec(text)?.[1]);
  // Leg counting: recount the question's legs and compare with the reply's answer.
  const LEGS: Record<string, number> = {
    spider: 8, spiders: 8, chicken: 2, chickens: 2, cow: 4, cows: 4, ant: 6, ants: 6, crab: 10, crabs: 10, starfish: 5, duck: 2, ducks: 2,
    horse: 4, horses: 4, beetle: 6, beetles: 6, snake: 0, snakes: 0, octopus: 8, octopuses: 8, sheep: 4, flamingo: 2, flamingos: 2,
    lobster: 10, lobsters: 10, butterfly: 6, butterflies: 6, cat: 4, cats: 4,
  };
  const legs = events(simulate(specFor({ includeTraces: true, simulation: { error_rate: 0.1 } }), [])).filter((e) => e.kind === 'task_completed');
  let checked = 0;
  for (const e of legs) {
    t.match(e.input!, /^How many legs do .+ have in total\?$/);
    const truth = [...e.input!.matchAll(/(\d+) ([a-z]+)/g)].reduce((s, m) => s + Number(m[1]) * LEGS[m[2]], 0);
    if (e.outcome === 'error') {
      if (e.output!.includes('Answer:')) t.fail('an errored reply stops before its answer');
      continue;
    }
    const answer = Number(/Answer: (\d+)$/.exec(e.output!)?.[1]);
    if ((answer === truth) !== (e.outcome === 'passed')) t.fail(`${e.task_id} ${e.outcome}: answered ${answer}, truth ${truth}`);
    t.ok(e.verifier!.endsWith(e.outcome!), 'the verifier states the outcome');
    checked++;
  }
  t.ok(checked > 100, `${checked} leg-counting replies checked`);

  // Word problems: a passed reply ends with the expected number, a failed one with another.
  for (const e of events(simulate(specFor({ includeTraces: true, taskset: 'openai/gsm8k' }), [])).filter((x) => x.kind === 'task_completed' && x.outcome !== 'error')) {
    t.match(e.output!, /#### \d+$/);
    const expected = /expected (\d+)/.exec(e.verifier!)?.[1];
    if (e.outcome === 'failed' && Number(expected) === lastNumber(e.output!)) t.fail('a failed reply has a wrong answer');
  }

  // Graph colouring: recheck the colouring against the edges.
  const graphs = events(simulate(evaluateSpec({ includeTraces: true, taskset: 'nodus/graph-coloring', evaluationTasks: 64 }), [])).filter((e) => e.kind === 'task_completed' && e.outcome !== 'error');
  for (const e of graphs) {
    const edges = [...e.input!.split('Edges: ')[1].split('\n')[0].matchAll(/(\d+)-(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    const colouring = JSON.parse(e.output!) as Record<string, number>;
    const conflicts = edges.filter(([u, v]) => colouring[u] === colouring[v]).length;
    const colours = new Set(Object.values(colouring)).size;
    if ((conflicts === 0 && colours <= 3) !== (e.outcome === 'passed')) t.fail(`${e.task_id}: ${conflicts} conflicts but ${e.outcome}`);
  }
  t.ok(graphs.length > 50, 'graph colourings checked');
});
