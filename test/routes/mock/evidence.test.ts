import fc from 'fast-check';
import t from '../../helpers/tap.js';
import { keysOf } from '../../../openapi/plain.js';
import { isPlainRLEvent, RLEvent } from '../../../openapi/rl-evidence.js';
import { canonicalJson } from '../../../server/domain/json-text.js';
import { rlEventInput } from '../../../server/domain/workloads/materialise.js';
import { attempt, drainChecked, ingest, ingestText, submitCustom } from '../../helpers/evidence.js';
import { advance, launchRun, legCounting } from '../../helpers/rl.js';
import { arbitraryOf } from '../../helpers/schema-arbitrary.js';
import { freshKey, startInProcess } from '../../helpers/server.js';

const base = { event_id: 'e1', phase: 'evaluation', task_id: 'task-1', attempt: 1, kind: 'task_started' };
const done = { ...base, event_id: 'e2', kind: 'task_completed', outcome: 'passed' };

t.test('each event is checked on its own; the valid ones of the same request are kept', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  const refused: Array<[string, unknown]> = [
    ['task_started with an outcome', { ...base, outcome: 'passed' }],
    ['task_started with a reward', { ...base, reward: 1 }],
    ['task_started with duration_ms', { ...base, duration_ms: 5 }],
    ['task_completed without outcome', { ...done, outcome: undefined }],
    ['an unknown kind', { ...base, kind: 'task_paused' }],
    ['an unknown phase', { ...base, phase: 'export' }],
    ['an unknown outcome', { ...done, outcome: 'skipped' }],
    ['an unknown field', { ...base, extra: 1 }],
    ['a missing event_id', { ...base, event_id: undefined }],
    ['an empty task_id', { ...base, task_id: '' }],
    ['a task_id of 129 bytes', { ...base, task_id: 'x'.repeat(129) }],
    ['a task_id of 130 UTF-8 bytes in 65 characters', { ...base, task_id: 'é'.repeat(65) }],
    ['an identity with a control character', { ...base, event_id: 'e\u0001' }],
    ['an identity with edge whitespace', { ...base, task_id: ' task' }],
    ['a message with a control character', { ...done, message: 'bell\u0007' }],
    ['a message over 1024 bytes', { ...done, message: 'm'.repeat(1025) }],
    ['an input over 4096 bytes', { ...done, input: 'i'.repeat(4097) }],
    ['attempt 0', { ...base, attempt: 0 }],
    ['attempt 1,000,001', { ...base, attempt: 1_000_001 }],
    ['a fractional attempt', { ...base, attempt: 1.5 }],
    ['a string attempt', { ...base, attempt: '1' }],
    ['a boolean reward', { ...done, reward: true }],
    ['a negative duration', { ...done, duration_ms: -1 }],
    ['a number instead of an object', 5],
    ['null', null],
  ];
  const accepted = [
    { ...done, event_id: 'ok1', task_id: 'é'.repeat(64), message: 'tab\tand\r\nnewline', reward: -2.5, duration_ms: 0 },
    { ...done, event_id: 'ok2', task_id: 'task-2', outcome: 'error' },
  ];
  const res = await ingest(s, id, [accepted[0], ...refused.map(([, e]) => e), accepted[1]]);
  t.equal(res.status, 200);
  t.match(res.body, { accepted: 2, duplicates: 0, dropped: 0 });
  t.same(res.body.rejected.map((r: any) => r.index), refused.map((_, i) => i + 1), 'every bad one, by index');
  res.body.rejected.forEach((r: any, i: number) => {
    t.equal(r.error, 'invalid_event', refused[i][0]);
    t.match(r.message, new RegExp(`^events\\.${r.index}\\b`), `${refused[i][0]}: the message names the event (${r.message})`);
  });
  const { rows } = await drainChecked(s, id);
  t.same(rows.map((r) => r.event.event_id), ['ok1', 'ok2']);
  t.same(rows[0].event, accepted[0], 'stored exactly as sent: a negative reward and 0 ms are real values');
});

/** Every key of RLEvent that some of these events carry, to show the generators reach them all. */
const keysSeen = (events: object[]) => new Set(events.flatMap((e) => Object.keys(e)));

t.test('property: an event is stored as its canonical JSON, the text rows written before hold', async (t) => {
  // Events generated from RLEvent, every field it has: any string (lone surrogates, quotes,
  // controls) and any number JSON can carry; RLEvent decides which get this far, and a repeat is
  // compared with the stored text as text.
  const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }));
  const event = arbitraryOf(RLEvent, {
    text: () => text,
    number: ({ min, max, integer }) => (integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true })),
    choice: (values) => fc.constantFrom(...values),
  });
  const valid: object[] = [];
  fc.assert(
    fc.property(event, (e) => {
      const parsed = RLEvent.safeParse(e);
      if (!parsed.success) return true;
      valid.push(parsed.data);
      return rlEventInput('main', 1, 0, parsed.data).event === canonicalJson(e);
    }),
    { numRuns: 2000 },
  );
  t.same(keysOf(RLEvent).filter((key) => !keysSeen(valid).has(key)), [], 'valid events carried every field');
});

t.test('property: an event isPlainRLEvent passes is one RLEvent accepts unchanged', async (t) => {
  // Mostly valid events, generated from RLEvent, each field now and then at an edge it decides
  // on: whitespace and controls at either end, non-ASCII, lengths around the field's limit,
  // numbers at and past its bounds, a key set to undefined; then a field of another event (so
  // another kind's), an unknown key.
  const char = fc.constantFrom('a', '~', ' ', '!', '\t', '\n', '\r', '\u0000', '\u001f', '\u007f', '\u0085', '\u00a0', 'é', '\u2028', '\ud83d', '\ud83d\ude00');
  // Lengths around a limit in UTF-16 units, of characters of 1 to 4 UTF-8 bytes (the limits count bytes).
  const around = (n: number) => fc.constantFrom(1, 2, 3, 4).chain((bytes) => fc.integer({ min: Math.floor(n / bytes) - 2, max: Math.floor(n / bytes) + 1 })
    .map((len) => ['a', 'é', '\u2028', '\ud83d\ude00'][bytes - 1].repeat(bytes === 4 ? Math.ceil(len / 2) : len)));
  const mostly = (valid: fc.Arbitrary<unknown>, edge: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: edge, weight: 1 });
  const odd = fc.constantFrom(undefined, 7, 'other');
  const identity = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '/', '-', '_', '~'), minLength: 1, maxLength: 40 });
  const free = fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\t', 'é', '\u2028'), maxLength: 40 });
  const single = arbitraryOf(RLEvent, {
    text: ({ minLength, maxLength }) => mostly(minLength > 0 ? identity : free,
      fc.oneof(fc.string({ unit: char, maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 6 }), around(maxLength), odd)),
    number: ({ min, max, integer }) => mostly(integer ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
      fc.oneof(fc.double(), fc.constantFrom(min, max, min - 1, max + 1, min + 0.5, 0, -0, Infinity, NaN, '1'), odd)),
    choice: (values) => mostly(fc.constantFrom(...values), odd),
  });
  const event = fc.tuple(single, single, fc.subarray(keysOf(RLEvent), { maxLength: 2 }), fc.nat(9)).map(([a, b, borrowed, n]) => {
    const e = { ...(a as object) } as Record<string, unknown>;
    for (const key of n < 3 ? borrowed : []) if (key in (b as object)) e[key] = (b as Record<string, unknown>)[key];
    if (n === 9) e.extra = 1;
    return e;
  });
  const plain: object[] = [];
  fc.assert(
    fc.property(event, (e) => {
      if (!isPlainRLEvent(e)) return true;
      plain.push(e);
      const parsed = RLEvent.safeParse(e);
      return parsed.success && canonicalJson(parsed.data) === canonicalJson(e) && Object.keys(parsed.data).length === Object.keys(e).length;
    }),
    { numRuns: 5000 },
  );
  t.ok(plain.length > 100, `${plain.length} events took the quick path`);
  t.same(keysOf(RLEvent).filter((key) => !keysSeen(plain).has(key)), [], 'the quick path took every field');
});

t.test('identity rules: duplicates are ignored, changed content and clashes are refused', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  t.match((await ingest(s, id, [base, done])).body, { accepted: 2 });
  const res = await ingest(s, id, [
    { kind: base.kind, attempt: 1, task_id: 'task-1', phase: 'evaluation', event_id: 'e1' }, // same content, other key order
    { ...done, reward: 0.5 },
    { ...base, event_id: 'e3' },
    { ...base, event_id: 'e4', attempt: 2 },
    { ...base, event_id: 'e4', attempt: 2 },
  ]);
  t.match(res.body, { accepted: 1, duplicates: 2, dropped: 0 });
  t.same(res.body.rejected.map((r: any) => [r.index, r.error]), [[1, 'event_id_conflict'], [2, 'identity_conflict']]);
  t.equal((await drainChecked(s, id)).rows.length, 3);
});

t.test('an evaluate-mode workload refuses training-phase events; a train-mode one takes them', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const evaluate = await submitCustom(s, 'evaluate');
  const res = await ingest(s, evaluate, [...attempt('training', 'x', 1, 'passed'), ...attempt('evaluation', 'x', 1, 'passed')]);
  t.match(res.body, { accepted: 2 });
  t.same(res.body.rejected.map((r: any) => [r.index, r.error]), [[0, 'phase_not_allowed'], [1, 'phase_not_allowed']]);
  const train = await submitCustom(s, 'train');
  t.match((await ingest(s, train, attempt('training', 'x', 1, 'passed'))).body, { accepted: 2, rejected: [] });
});

t.test('text bodies: nodus.rl_event lines are events, other lines are only logged', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s, 'train', { stages: [{ id: 'prep', source: { image: 'x' } }, { id: 'eval', source: { image: 'x' } }] });
  const text = [
    'loading model...',
    `nodus.rl_event ${JSON.stringify(base)}`,
    'nodus.rl_event {"event_id": ',
    `nodus.rl_event ${JSON.stringify({ ...done, outcome: undefined })}`,
    `  nodus.rl_event ${JSON.stringify(done)}`,
    `nodus.rl_event ${JSON.stringify(done)}`,
    'done',
  ].join('\r\n') + '\r\n';
  const res = await ingestText(s, id, text, '?stage_id=eval');
  t.equal(res.status, 200);
  t.match(res.body, { stage_id: 'eval', generation: 1, accepted: 2 });
  t.same(res.body.rejected.map((r: any) => [r.index, r.line, r.error]), [[1, 3, 'invalid_json'], [2, 4, 'invalid_event']]);
  const { rows } = await drainChecked(s, id);
  t.same(rows.map((r) => [r.stage_id, r.event.event_id]), [['eval', 'e1'], ['eval', 'e2']]);
  const logs = s.store.runtime.logs(id, 0, 1000).filter((l) => l.stageId === 'eval').map((l) => l.line);
  t.same(logs, text.split('\r\n').slice(0, -1), 'the log is the text as sent, line by line');

  const jsonLogged = await submitCustom(s);
  await ingest(s, jsonLogged, [done, 5]);
  const lines = s.store.runtime.logs(jsonLogged, 0, 1000).map((l) => l.line);
  t.same(lines, [`nodus.rl_event ${JSON.stringify(done)}`], 'JSON events are logged as the emitter prints them');
});

t.test('stage, generation and workload are checked before any event', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  const cases: Array<[string, Promise<any>, number, string]> = [
    ['unknown stage', ingest(s, id, [base], { stage_id: 'other' }), 400, 'invalid_stage'],
    ['generation above the current', ingest(s, id, [base], { generation: 2 }), 400, 'invalid_generation'],
    ['generation 0', ingest(s, id, [base], { generation: 0 }), 400, 'invalid_request'],
    ['generation in the query twice', ingestText(s, id, '', '?generation=1&generation=1'), 400, 'invalid_request'],
    ['stage in body and query', s.call('POST', `/_mock/workloads/${id}/rl-events?stage_id=main`, { body: { events: [], stage_id: 'main' } }), 400, 'invalid_request'],
    ['events not a list', ingest(s, id, 5 as never), 400, 'invalid_request'],
    ['unknown body field', ingest(s, id, [], { mode: 'train' }), 400, 'invalid_request'],
    ['not JSON', s.call('POST', `/_mock/workloads/${id}/rl-events`, { raw: '{"events": [', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json'],
    ['no body and no media type', s.call('POST', `/_mock/workloads/${id}/rl-events`), 400, 'invalid_request'],
    ['a form body', s.call('POST', `/_mock/workloads/${id}/rl-events`, { raw: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type'],
    ["another tenant's workload", ingest(s, id, [base], {}, freshKey()), 404, 'not_found'],
  ];
  for (const [what, pending, status, error] of cases) {
    const res = await pending;
    t.equal(res.status, status, what);
    t.equal(res.body.error, error, what);
  }
  t.equal((await drainChecked(s, id)).rows.length, 0, 'nothing stored');

  const { id: recipe } = await launchRun(s, legCounting());
  const res = await ingest(s, recipe, [base]);
  t.equal(res.status, 409);
  t.equal(res.body.error, 'recipe_run', 'managed runs report through the simulated runtime only');
});

t.test('a finished workload still takes late lines (a runner flushing its last output)', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const id = await submitCustom(s);
  await advance(s, 3600);
  t.equal((await s.call('GET', `/v1/workloads/${id}`)).body.status, 'completed');
  t.match((await ingest(s, id, [base])).body, { accepted: 1 });
});
