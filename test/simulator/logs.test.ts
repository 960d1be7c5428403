import t from '../helpers/tap.js';
import { RL_EVENT_PREFIX, rlEventLine, simulate, type Intervention, type Timeline } from '../../server/simulator/index.js';
import { CREATED_AT, customSpec, type Asserts, itemsOf, lifecycle, rlEvents, specFor } from './fixtures.js';

function checkAgreement(t: Asserts, tl: Timeline, name: string) {
  const logs = itemsOf(tl, 'log');
  const eventLines = logs.filter((l) => l.line.startsWith(RL_EVENT_PREFIX));
  const evs = rlEvents(tl);
  t.equal(eventLines.length, evs.length, `${name}: one log line per event`);
  const mismatches = evs.filter((e, i) => {
    const l = eventLines[i];
    return !l || l.atMs !== e.atMs || l.generation !== e.generation || l.stageId !== e.stageId || l.line !== rlEventLine(e.event)
      || JSON.stringify(JSON.parse(l.line.slice(RL_EVENT_PREFIX.length))) !== JSON.stringify(e.event);
  });
  t.same(mismatches, [], `${name}: each line parses back to exactly its event, same time, stage and generation`);
}

t.test('the log and the evidence agree', async (t) => {
  const recover: Intervention[] = [{ kind: 'recover', atMs: CREATED_AT + 500_000, replayLast: 10 }];
  checkAgreement(t, simulate(specFor(), []), 'train');
  checkAgreement(t, simulate(specFor({ includeTraces: true, taskset: 'nodus/graph-coloring' }), []), 'traces');
  checkAgreement(t, simulate(specFor(), recover), 'recovered');
});

t.test('an event line has the emitter\'s key order whatever order the event came in, and Go\'s escapes', async (t) => {
  const event = {
    verifier: 'v', output: 'a < b & c', input: 'i', message: 'm', duration_ms: 5, reward: 0, outcome: 'failed' as const,
    kind: 'task_completed' as const, attempt: 2, task_id: 't', phase: 'evaluation' as const, event_id: 'e',
  };
  t.equal(rlEventLine(event), `${RL_EVENT_PREFIX}{"event_id":"e","phase":"evaluation","task_id":"t","attempt":2,"kind":"task_completed",` +
    '"outcome":"failed","reward":0,"duration_ms":5,"message":"m","input":"i","output":"a \\u003c b \\u0026 c","verifier":"v"}');
  t.equal(rlEventLine({ kind: 'task_started', attempt: 1, task_id: 't', phase: 'baseline', event_id: 'e' }),
    `${RL_EVENT_PREFIX}{"event_id":"e","phase":"baseline","task_id":"t","attempt":1,"kind":"task_started"}`, 'absent fields are left out');
});

t.test('a plausible training log', async (t) => {
  const spec = specFor({ trainingSteps: 12 });
  const tl = simulate(spec, []);
  const human = itemsOf(tl, 'log').filter((l) => !l.line.startsWith(RL_EVENT_PREFIX));
  t.ok(human.every((l) => l.line.startsWith(`${new Date(l.atMs).toISOString()} `)), 'human lines carry their time');
  const text = human.map((l) => l.line).join('\n');
  t.match(text, /runtime: stage main started/);
  t.match(text, /loaded model Qwen\/Qwen3-0\.6B; LoRA adapter r=16/);
  t.match(text, /== baseline: 16 held-out tasks/);
  t.match(text, /== training: 12 GRPO steps, 8 replies per group ==/);
  t.match(text, /evaluation done: \d+ passed, \d+ failed, \d+ errored of \d+ attempts/);
  t.match(text, /comparison: baseline [\d.]+ -> evaluation [\d.]+/);
  t.match(text, /export: wrote results\.json, adapter_config\.json, adapter_model\.safetensors/);
  const steps = lifecycle(tl, 'rl.training_step');
  for (const s of steps) {
    const p = s.payload as Record<string, number>;
    const line = human.find((l) => l.atMs === s.atMs && l.line.includes(`step ${p.step}/12 `));
    t.ok(line && line.line.includes(`reward_mean=${p.reward_mean.toFixed(4)}`) && line.line.includes(`loss=${p.loss.toFixed(4)}`) && line.line.includes(`kl=${p.kl.toFixed(5)}`), `step ${p.step} logged with its metrics`);
  }
  const logs = itemsOf(tl, 'log');
  t.ok(logs.every((l) => l.atMs >= lifecycle(tl, 'stage.started')[0].atMs), 'the stage log starts with the stage');
});

t.test('interventions show in the log', async (t) => {
  const tl = simulate(specFor(), [
    { kind: 'freeze', atMs: CREATED_AT + 400_000 },
    { kind: 'resume', atMs: CREATED_AT + 500_000 },
    { kind: 'recover', atMs: CREATED_AT + 700_000, replayLast: 0 },
    { kind: 'cancel', atMs: CREATED_AT + 900_000 },
  ]);
  const text = itemsOf(tl, 'log').map((l) => l.line).join('\n');
  for (const expected of ['freeze requested', 'resumed after freeze', 'execution lost', 'resumed from checkpoint in generation 2', 'cancel requested']) t.match(text, expected);
  const custom = simulate(customSpec(), []);
  t.match(itemsOf(custom, 'log').map((l) => l.line).join('\n'), /command exited with status 0/);
});
