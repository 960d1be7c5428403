import fc from 'fast-check';
import t from '../helpers/tap.js';
import { simulate, stateAt, type Intervention, type Timeline, type TimelineItem } from '../../server/simulator/index.js';
import { checkOrdered, type Asserts, customSpec, itemsOf, latestReceipts, lifecycle, rlEvents, specFor, statusAt, statuses } from './fixtures.js';

const spec = specFor();
const base = simulate(spec, []);
const T0 = spec.createdAtMs;

/** The work of the run, without the status changes and logs that interventions add. */
function work(tl: Timeline, after: number, shift = 0) {
  return tl.items
    .filter((i) => i.atMs > after && (i.kind === 'rl_event' || i.kind === 'receipt' || (i.kind === 'lifecycle' && !i.eventType.startsWith('workload.'))))
    .map((i) => (i.kind === 'lifecycle' ? { atMs: i.atMs + shift, type: i.eventType, payload: i.payload } : { ...i, atMs: i.atMs + shift }));
}

/** Items up to `at` are exactly those of the uninterrupted run. */
function samePast(t: Asserts, tl: Timeline, at: number) {
  const k = base.items.filter((i) => i.atMs <= at).length;
  t.same(tl.items.slice(0, k), base.items.slice(0, k), 'the past is untouched');
}

const firstInPhase = (phase: string) => rlEvents(base).find((i) => i.event.phase === phase)!.atMs;

t.test('freeze and resume while running: paused span shifts the rest exactly, spend stays flat', async (t) => {
  const tf = firstInPhase('training') + 60_000;
  const tr = tf + 300_000;
  const tl = simulate(spec, [{ kind: 'freeze', atMs: tf }, { kind: 'resume', atMs: tr }]);
  checkOrdered(t, tl, spec);
  t.same(statuses(tl), ['accepted', 'planning', 'reserving', 'provisioning', 'running', 'freezing', 'frozen', 'running', 'completed']);
  t.equal(statusAt(tl, 'freezing'), tf);
  const frozenAt = statusAt(tl, 'frozen')!;
  t.ok(frozenAt - tf >= 10_000 && frozenAt - tf <= 20_000, 'frozen 10-20 s after the request');
  const back = statusAt(tl, 'running', 1)!;
  t.ok(back - tr >= 5_000 && back - tr <= 15_000, 'back to running 5-15 s after resume');
  const span = back - tf;
  t.equal(tl.endAtMs, base.endAtMs! + span, 'completion moves by the paused span');
  samePast(t, tl, tf);
  t.same(work(tl, tf), work(base, tf, span), 'every later item moves by exactly the paused span');
  t.ok(itemsOf(tl, 'status').every((s) => s.generation === 1), 'a freeze is no new generation');

  const during = [frozenAt, frozenAt + 1, tr, back - 1].map((at) => stateAt(spec, [{ kind: 'freeze', atMs: tf }, { kind: 'resume', atMs: tr }], at, tl));
  t.same(new Set(during.map((s) => s.spendUsd)).size, 1, 'spend is flat while frozen');
  t.ok(during.every((s) => s.status === 'frozen' && s.accruingRateUsdHour === 0 && s.phase === 'training'), 'frozen, not accruing, phase kept');
  const ivs: Intervention[] = [{ kind: 'freeze', atMs: tf }, { kind: 'resume', atMs: tr }];
  const freezing = stateAt(spec, ivs, tf + 1, tl);
  t.equal(freezing.accruingRateUsdHour, spec.usdPerHour, 'freezing from running still holds (and bills) the compute');
  const final = stateAt(spec, ivs, tl.endAtMs!, tl).spendUsd;
  const uninterrupted = stateAt(spec, [], base.endAtMs!, base).spendUsd;
  t.ok(Math.abs(final - uninterrupted - (spec.usdPerHour * (frozenAt - tf)) / 3_600_000) < 2e-6, 'only the freezing transition adds to the bill');
});

t.test('freeze during provisioning returns to provisioning', async (t) => {
  const tf = statusAt(base, 'provisioning')! + 10_000;
  const ivs: Intervention[] = [{ kind: 'freeze', atMs: tf }, { kind: 'resume', atMs: tf + 120_000 }];
  const tl = simulate(spec, ivs);
  t.same(statuses(tl), ['accepted', 'planning', 'reserving', 'provisioning', 'freezing', 'frozen', 'provisioning', 'running', 'completed']);
  t.same(lifecycle(tl, 'workload.status').map((e) => e.payload.previous).slice(4, 8), ['provisioning', 'freezing', 'frozen', 'provisioning']);
  const span = statusAt(tl, 'provisioning', 1)! - tf;
  t.equal(statusAt(tl, 'running'), statusAt(base, 'running')! + span);
});

t.test('resume while still freezing waits for frozen; a freeze with no resume stays frozen', async (t) => {
  const tf = firstInPhase('baseline') + 2_000;
  const early = simulate(spec, [{ kind: 'freeze', atMs: tf }, { kind: 'resume', atMs: tf + 1_000 }]);
  const frozenAt = statusAt(early, 'frozen')!;
  t.ok(statusAt(early, 'running', 1)! >= frozenAt + 5_000, 'the resume transition starts once frozen');
  t.equal(early.finalStatus, 'completed');

  const ivs: Intervention[] = [{ kind: 'freeze', atMs: tf }];
  const stuck = simulate(spec, ivs);
  t.equal(stuck.endAtMs, null);
  t.equal(stuck.finalStatus, null);
  t.equal(statuses(stuck).at(-1), 'frozen');
  t.equal(stuck.items.at(-1)!.atMs, statusAt(stuck, 'frozen'), 'nothing happens after frozen');
  const later = stateAt(spec, ivs, tf + 86_400_000, stuck);
  t.same([later.status, later.terminal, later.accruingRateUsdHour], ['frozen', false, 0]);
  t.equal(later.spendUsd, stateAt(spec, ivs, frozenAt, stuck).spendUsd);
});

t.test('recover: recovering, then a new generation shifted by the recovery time', async (t) => {
  // Inside a training step, while its group of attempts is in flight.
  const tr = rlEvents(base).filter((i) => i.event.phase === 'training')[40].atMs + 500;
  const inFlight = rlEvents(base).filter((i) => i.event.kind === 'task_started' && i.atMs <= tr).filter(
    (s) => !rlEvents(base).some((c) => c.event.kind === 'task_completed' && c.atMs <= tr && c.event.task_id === s.event.task_id && c.event.attempt === s.event.attempt && c.event.phase === s.event.phase),
  );
  t.ok(inFlight.length > 0, `${inFlight.length} attempts in flight at the interruption`);
  const ivs: Intervention[] = [{ kind: 'recover', atMs: tr, replayLast: 20 }];
  const tl = simulate(spec, ivs);
  checkOrdered(t, tl, spec);
  t.same(statuses(tl), ['accepted', 'planning', 'reserving', 'provisioning', 'running', 'recovering', 'running', 'completed']);
  t.equal(statusAt(tl, 'recovering'), tr);
  const back = statusAt(tl, 'running', 1)!;
  const span = back - tr;
  t.ok(span >= 45_000 && span <= 90_000, `recovery took ${span} ms`);
  t.same(itemsOf(tl, 'status').map((s) => s.generation), [1, 1, 1, 1, 1, 1, 2, 2], 'the new generation starts when recovery completes');
  t.same(lifecycle(tl, 'workload.recovered').map((e) => [e.atMs, e.payload]), [[back, { generation: 2 }]]);
  t.equal(tl.endAtMs, base.endAtMs! + span);
  samePast(t, tl, tr);

  const after = tl.items.filter((i) => i.atMs > tr && (i.kind === 'rl_event' || i.kind === 'log'));
  t.ok(after.every((i) => (i as { generation: number }).generation === 2), 'every later event and log line is generation 2');
  const replayed = rlEvents(tl).filter((i) => i.atMs === back);
  t.same(replayed.map((i) => i.event), inFlight.map((i) => i.event), 'in-flight attempts report task_started again, same ids');
  t.ok(replayed.every((i) => i.generation === 2));
  const strip = (items: ReturnType<typeof work>) => items.filter((i) => !('kind' in i && i.kind === 'rl_event' && i.atMs === back));
  const regen = (items: ReturnType<typeof work>) => items.map((i) => ('generation' in i ? { ...i, generation: 2 } : i));
  t.same(strip(work(tl, tr)), regen(work(base, tr, span)), 'every later item moves by exactly the recovery time');
  for (const s of inFlight) {
    const done = rlEvents(tl).find((c) => c.event.kind === 'task_completed' && c.event.task_id === s.event.task_id && c.event.attempt === s.event.attempt && c.event.phase === s.event.phase)!;
    t.equal(done.generation, 2, 'the interrupted attempt completes in the new generation');
  }
  const recovering = stateAt(spec, ivs, tr + 1, tl);
  t.same([recovering.status, recovering.generation, recovering.accruingRateUsdHour], ['recovering', 1, spec.usdPerHour]);
  const recovered = stateAt(spec, ivs, back, tl);
  t.same([recovered.status, recovered.generation], ['running', 2]);
});

t.test('cancel during the final evaluation: truncation, receipts cancelled', async (t) => {
  const receipts = itemsOf(base, 'receipt');
  const firstFinal = receipts.find((r) => r.receipt.state !== 'pending')!;
  const tc = firstFinal.atMs - 1;
  const pendingAtTc = new Set(receipts.filter((r) => r.atMs <= tc && r.receipt.state === 'pending').map((r) => r.receipt.attempt_id));
  t.ok(pendingAtTc.size > 0, 'some receipts are pending at the cancel');
  const ivs: Intervention[] = [{ kind: 'cancel', atMs: tc }];
  const tl = simulate(spec, ivs);
  checkOrdered(t, tl, spec);
  samePast(t, tl, tc);
  t.equal(tl.endAtMs, tc);
  t.equal(tl.finalStatus, 'cancelled');
  t.same(statuses(tl).slice(-2), ['running', 'cancelled']);
  t.ok(tl.items.every((i) => i.atMs <= tc), 'nothing after the cancel');
  t.equal(lifecycle(tl, 'workload.cancelled').length, 1);
  t.equal(lifecycle(tl, 'rl.phase_completed').length, 2, 'the final evaluation never completes');
  const settled = latestReceipts(tl);
  t.equal(settled.length, pendingAtTc.size);
  t.ok(settled.every((r) => r.state === 'infrastructure_failure' && r.infrastructure_code === 'execution_cancelled' && r.cleanup_complete && r.reward === undefined));
  const end = stateAt(spec, ivs, tc + 3_600_000, tl);
  t.same([end.status, end.terminal, end.accruingRateUsdHour, end.phase, end.stage.status], ['cancelled', true, 0, null, 'cancelled']);
  t.equal(end.spendUsd, stateAt(spec, ivs, tc, tl).spendUsd, 'spend stops at the cancel');
});

t.test('fail: failed with its reason, receipts execution_failed', async (t) => {
  const pending = itemsOf(base, 'receipt')[0];
  const tf = pending.atMs;
  const tl = simulate(spec, [{ kind: 'fail', atMs: tf, reason: 'GPU fell off the bus' }]);
  t.equal(tl.finalStatus, 'failed');
  t.equal(tl.endAtMs, tf);
  t.same(lifecycle(tl, 'workload.failed').map((e) => e.payload), [{ reason: 'GPU fell off the bus' }]);
  t.ok(latestReceipts(tl).every((r) => r.state === 'infrastructure_failure' && r.infrastructure_code === 'execution_failed'));
  t.ok(itemsOf(tl, 'log').some((l) => l.line.endsWith('runtime: failed: GPU fell off the bus')));
});

t.test('cancel at every status', async (t) => {
  const cases: Array<[string, Intervention[], number]> = [];
  for (const s of ['accepted', 'planning', 'reserving', 'provisioning', 'running'] as const) cases.push([s, [], statusAt(base, s)! + (s === 'accepted' ? 0 : 1)]);
  const tf = firstInPhase('evaluation');
  cases.push(['freezing', [{ kind: 'freeze', atMs: tf }], tf + 1]);
  cases.push(['frozen', [{ kind: 'freeze', atMs: tf }], tf + 60_000]);
  cases.push(['recovering', [{ kind: 'recover', atMs: tf, replayLast: 0 }], tf + 1_000]);
  for (const [status, before, tc] of cases) {
    const tl = simulate(spec, [...before, { kind: 'cancel', atMs: tc }]);
    t.same(lifecycle(tl, 'workload.status').at(-1)!.payload, { status: 'cancelled', previous: status }, `cancel while ${status}`);
    t.equal(tl.endAtMs, tc);
  }
  const custom = customSpec();
  const tl = simulate(custom, [{ kind: 'cancel', atMs: statusAt(simulate(custom, []), 'running')! + 1000 }]);
  t.equal(tl.finalStatus, 'cancelled', 'custom runs cancel too');
});

t.test('ignored interventions', async (t) => {
  const tf = firstInPhase('training');
  const cases: Array<[string, Intervention[], string]> = [
    ['resume without freeze', [{ kind: 'resume', atMs: tf }], 'not_frozen'],
    ['second freeze', [{ kind: 'freeze', atMs: tf }, { kind: 'freeze', atMs: tf + 30_000 }], 'already_frozen'],
    ['second resume', [{ kind: 'freeze', atMs: tf }, { kind: 'resume', atMs: tf + 30_000 }, { kind: 'resume', atMs: tf + 31_000 }], 'resume_pending'],
    ['recover while frozen', [{ kind: 'freeze', atMs: tf }, { kind: 'recover', atMs: tf + 30_000, replayLast: 0 }], 'frozen'],
    ['freeze while recovering', [{ kind: 'recover', atMs: tf, replayLast: 0 }, { kind: 'freeze', atMs: tf + 1_000 }], 'recovering'],
    ['after completion', [{ kind: 'cancel', atMs: base.endAtMs! }], 'terminal'],
    ['after a cancel', [{ kind: 'cancel', atMs: tf }, { kind: 'fail', atMs: tf + 1, reason: 'x' }], 'terminal'],
    ['before creation', [{ kind: 'cancel', atMs: T0 - 1 }], 'before_creation'],
  ];
  for (const [name, ivs, reason] of cases) {
    const tl = simulate(spec, ivs);
    t.same(tl.ignored.map((i) => [i.intervention, i.reason]), [[ivs.at(-1), reason]], name);
    t.same(tl.items, simulate(spec, ivs.slice(0, -1)).items, `${name} changes nothing`);
  }
});

const KINDS = ['freeze', 'resume', 'recover', 'cancel', 'fail'] as const;
const interventionArb = fc.record({ kind: fc.constantFrom(...KINDS), offset: fc.integer({ min: 0, max: 1_400_000 }) }).map(
  ({ kind, offset }): Intervention =>
    kind === 'recover' ? { kind, atMs: T0 + offset, replayLast: 5 } : kind === 'fail' ? { kind, atMs: T0 + offset, reason: 'fault' } : { kind, atMs: T0 + offset },
);

t.test('property: any interventions keep the invariants', async (t) => {
  fc.assert(
    fc.property(fc.array(interventionArb, { maxLength: 6 }), fc.integer({ min: 0, max: 1000 }), (ivs, seed) => {
      const s = specFor({ seed, trainingSteps: 10 });
      const tl = simulate(s, ivs);
      // Sorted, inside [created, end], every task_completed preceded by its task_started in the same generation.
      for (let i = 1; i < tl.items.length; i++) if (tl.items[i].atMs < tl.items[i - 1].atMs) return false;
      if (tl.endAtMs !== null && tl.items.some((i) => i.atMs > tl.endAtMs!)) return false;
      const started = new Set<string>();
      for (const i of rlEvents(tl)) {
        const key = `${i.generation}|${i.event.phase}|${i.event.task_id}|${i.event.attempt}`;
        if (i.event.kind === 'task_started') started.add(key);
        else if (!started.has(key)) return false;
      }
      // Generations never go down; receipts never carry a reward unless completed.
      const gens = itemsOf(tl, 'status').map((x) => x.generation);
      if (gens.some((g, i) => i > 0 && g < gens[i - 1])) return false;
      if (latestReceipts(tl).some((r) => (r.reward !== undefined) !== (r.state === 'completed'))) return false;
      if (tl.finalStatus !== null && latestReceipts(tl).some((r) => r.state === 'pending')) return false;
      // Spend never decreases.
      let spend = 0;
      for (let at = T0; at <= (tl.endAtMs ?? T0 + 2_000_000); at += 97_000) {
        const now = stateAt(s, ivs, at, tl).spendUsd;
        if (now < spend) return false;
        spend = now;
      }
      return true;
    }),
    { numRuns: 150, seed: 20260301 },
  );
  t.pass('invariants hold for random intervention sequences');
});

t.test('property: a later intervention never rewrites what was due before it', async (t) => {
  fc.assert(
    fc.property(fc.array(interventionArb, { minLength: 1, maxLength: 5 }), (ivs) => {
      const sorted = [...ivs].sort((a, b) => a.atMs - b.atMs);
      const last = sorted.at(-1)!;
      const without = simulate(spec, sorted.slice(0, -1));
      const withIt = simulate(spec, sorted);
      const k = without.items.filter((i: TimelineItem) => i.atMs <= last.atMs).length;
      return JSON.stringify(withIt.items.slice(0, k)) === JSON.stringify(without.items.slice(0, k));
    }),
    { numRuns: 150, seed: 7 },
  );
  t.pass('rows materialised up to an intervention stay valid after it');
});
