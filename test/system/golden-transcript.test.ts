/**
 * The golden transcript: one seeded scenario over real HTTP, every exchange of it (method, path,
 * status, the headers a client reads, the body byte for byte) compared with the recording in
 * test/fixtures/golden/transcript.json. It is there so that a refactor of the domain can prove it
 * moved no behaviour: ids, cursors, review tokens, webhook signatures and bodies all have to come
 * out the same.
 *
 * To re-record after a change of behaviour that is meant (and only then; read the diff first):
 *
 *   npm run build && NODUS_MOCK_RECORD_GOLDEN=1 node scripts/test.mjs dist/test/system/golden-transcript.test.js
 *
 * What makes it reproducible without touching the server's code:
 * - the database's secrets (review tokens, event and log cursors) are written into it before the
 *   app opens it, so tokens and cursors come out the same bytes;
 * - the wall clock is a constant (the app's `wallNow`, and `Date.now`, which workload ids use),
 *   and every tenant clock is manual, so every virtual timestamp is the same;
 * - nanoid is replaced, for this app only, by counters: each generator (one alphabet and size, so
 *   one kind of id) numbers its ids 1, 2, 3... and spells a digest of the number. A kind of id
 *   therefore keeps its values when another kind is made in a different order;
 * - every request sends its own X-Request-Id, which the server echoes and journals;
 * - webhook deliveries are attempted by a worker beside the requests: the scenario flushes them
 *   (`POST /_mock/webhooks/flush`) before every clock move and before reading them, so each
 *   attempt happens at the same virtual instant whatever the scheduling.
 * What stays random is masked: `duration_ms` (journal) and `latency_ms` (delivery attempts), wall
 * milliseconds measured by the server; the journal's request headers lose those of the transport
 * (the Host's port, fetch's defaults).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from '../helpers/tap.js';
import { defaultConfig } from '../../server/config.js';
import { openStore } from '../../store/index.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/golden/transcript.json', import.meta.url));
const RECORD = process.env.NODUS_MOCK_RECORD_GOLDEN === '1';
/** Where a run that is not recording leaves what it got, to diff against the fixture. */
const ACTUAL = join(tmpdir(), 'nodus-mock-golden-transcript.actual.json');

/** 2026-12-01T10:00:00Z: the wall clock of the whole scenario. */
const WALL_MS = Date.UTC(2026, 11, 1, 10, 0, 0);
const KEY = 'nk_test_golden_transcript';

/**
 * The secrets' names in server_settings: part of the database format (a file made by an older
 * version keeps its tokens valid), so written here rather than imported.
 */
const SECRETS = { 'review-token': 'a1', cursor: 'c2', 'log-cursor': 'e3' } as const;

/** Response headers a client reads; date, request id, connection and length are transport. */
const KEPT_HEADERS = /^(content-type|content-disposition|cache-control|etag|last-modified|location|retry-after|idempotent-replayed|link|allow|x-nodus-.*)$/;

/** Wall-clock measurements of the server, the only values left that differ between runs. */
const MASKS: Array<[RegExp, string]> = [
  [/"duration_ms":[0-9.e+-]+/g, '"duration_ms":"<ms>"'],
  [/"latency_ms":[0-9.e+-]+/g, '"latency_ms":"<ms>"'],
];

interface Exchange {
  n: number;
  method: string;
  path: string;
  request?: unknown;
  status: number | null;
  headers: Record<string, string>;
  /** The body parsed when it is JSON that re-encodes to the same bytes, for readable diffs. */
  json?: unknown;
  /** The body as text otherwise. */
  text?: string;
  /** A body that is not UTF-8 (a safetensors file), by its length and digest. */
  binary?: { bytes: number; sha256: string };
  /** Why no answer came (a fault that drops or resets the connection). */
  error?: string;
}

/** A nanoid whose every generator counts: the n-th id of an (alphabet, size) is a digest of n. */
function countingNanoid() {
  const counters = new Map<string, number>();
  return {
    customAlphabet(alphabet: string, size: number) {
      const kind = `${alphabet}/${size}`;
      return (length = size) => {
        const n = (counters.get(kind) ?? 0) + 1;
        counters.set(kind, n);
        const digest = createHash('sha256').update(`${kind}#${n}`).digest();
        let id = '';
        for (let i = 0; i < length; i++) id += alphabet[digest[i % digest.length] % alphabet.length];
        return id;
      };
    },
  };
}

/** The receiver listens on a port of its own each run. */
let receiverUrl = '';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Request headers that fetch and the socket choose, not the scenario: the Host's port is each
 * run's, and the defaults (user agent, accepted encodings) are each Node's.
 */
const TRANSPORT_REQUEST_HEADERS = /^(host|connection|user-agent|accept|accept-language|accept-encoding|sec-fetch-mode)$/;

/** A journal row's headers (an object beside a request_id) without the transport's. */
function scenarioHeaders(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scenarioHeaders);
  if (value === null || typeof value !== 'object') return value;
  const row = value as Record<string, unknown>;
  const journal = typeof row.request_id === 'string' && typeof row.headers === 'object' && row.headers !== null;
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, journal && k === 'headers'
    ? Object.fromEntries(Object.entries(v as Record<string, string>).filter(([name]) => !TRANSPORT_REQUEST_HEADERS.test(name)))
    : scenarioHeaders(v)]));
}

function mask(text: string): string {
  let masked = MASKS.reduce((s, [re, to]) => s.replace(re, to), text);
  if (masked.includes('"request_id"') && masked.includes('"headers":{')) {
    try {
      const value: unknown = JSON.parse(masked);
      if (JSON.stringify(value) === masked) masked = JSON.stringify(scenarioHeaders(value));
    } catch {
      // not JSON: left as it is
    }
  }
  return receiverUrl ? masked.replaceAll(receiverUrl, 'http://127.0.0.1:<receiver>/hook') : masked;
}

/** One exchange as the fixture keeps it. */
function entry(n: number, method: string, path: string, request: unknown, status: number | null, headers: Headers | null, text: string, error?: string): Exchange {
  const kept: Record<string, string> = {};
  for (const [name, value] of headers ?? []) if (KEPT_HEADERS.test(name)) kept[name] = value;
  const sent = request === undefined ? undefined : JSON.parse(mask(JSON.stringify(request)));
  const e: Exchange = { n, method, path, ...(sent !== undefined && { request: sent }), status, headers: kept };
  if (error !== undefined) return { ...e, error };
  const body = mask(text);
  if (body === '') return e;
  try {
    const parsed = JSON.parse(body);
    if (JSON.stringify(parsed) === body) return { ...e, json: parsed };
  } catch {
    // not JSON: kept as text
  }
  return { ...e, text: body };
}

t.test('the golden transcript: today\'s answers to a seeded scenario, byte for byte', async (t) => {
  const realNow = Date.now;
  Date.now = () => WALL_MS;
  t.teardown(() => {
    Date.now = realNow;
  });

  // Not the helpers' tempDbPath: their module loads the app without the counting nanoid.
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-golden-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dbPath = join(dir, 'golden.db');
  const seed = openStore(dbPath);
  const pin = seed.db.prepare('INSERT INTO server_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value');
  for (const [name, fill] of Object.entries(SECRETS)) pin.run(name, fill.repeat(32));
  seed.close();

  // An absolute URL: tap resolves a relative one against the caller's source-mapped .ts path.
  const appModule = new URL('../../server/app.js', import.meta.url).href;
  const { buildApp } = await t.mockImport<typeof import('../../server/app.js')>(appModule, { nanoid: countingNanoid() });
  // 100 events a workload: the recovered train run (115 with its replays) is cut at the bound.
  const config = defaultConfig({ logLevel: 'silent', db: dbPath, clock: 'manual', maxEventsPerWorkload: 100 });
  const app = await buildApp({ config, wallNow: () => WALL_MS });
  await app.listen({ host: '127.0.0.1', port: 0 });
  t.teardown(() => app.close());
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  // Each tenant signs its cursors with a key of its own, made at random with the tenant: pinned too.
  const { id: tenantId } = app.services.control.registerKey(KEY);
  app.services.context.units.atNow(tenantId, (unit) => unit.tables.tenants.setCursorKey(tenantId, 'c'.repeat(64)));

  // Answers 500 to the first delivery it gets, then 200: the scenario makes sure that first one is
  // the only delivery there is at the time (a run's `accepted`), so which one fails is fixed.
  const receiver = await startReceiver(t);
  receiverUrl = receiver.url;
  receiver.answer = (_req, res) => {
    res.statusCode = receiver.received.length === 1 ? 500 : 200;
    res.end();
  };

  const transcript: Exchange[] = [];
  interface Sent { status: number | null; body: any; text: string; headers: Headers | null }
  async function call(method: string, path: string, options: { body?: unknown; raw?: string; type?: string; headers?: Record<string, string> } = {}): Promise<Sent> {
    const n = transcript.length + 1;
    const headers: Record<string, string> = { authorization: `Bearer ${KEY}`, 'x-request-id': `golden-${String(n).padStart(4, '0')}`, ...options.headers };
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    if (options.type) headers['content-type'] = options.type;
    const request = options.body ?? options.raw;
    let res: Response;
    try {
      res = await fetch(base + path, { method, headers, body });
    } catch {
      transcript.push(entry(n, method, path, request, null, null, '', 'the connection closed before an answer'));
      return { status: null, body: undefined, text: '', headers: null };
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      transcript.push({ ...entry(n, method, path, request, res.status, res.headers, ''), binary: { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') } });
      return { status: res.status, body: bytes, text: '', headers: res.headers };
    }
    transcript.push(entry(n, method, path, request, res.status, res.headers, text));
    const json = (res.headers.get('content-type') ?? '').includes('application/json') && text !== '' ? JSON.parse(text) : text;
    return { status: res.status, body: json, text, headers: res.headers };
  }
  const ok = async (method: string, path: string, options?: Parameters<typeof call>[2]) => {
    const res = await call(method, path, options);
    if (res.status === null || res.status >= 300) throw new Error(`#${transcript.length} ${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const flush = () => ok('POST', '/_mock/webhooks/flush');
  /** Deliveries settle at the virtual instant they are made only if flushed before the clock moves. */
  const advance = async (seconds: number) => {
    await flush();
    await ok('POST', '/_mock/clock/advance', { body: { seconds } });
  };
  const status = async (id: string) => (await ok('GET', `/v1/workloads/${id}`)).status as string;
  const untilStatus = async (id: string, wanted: string, step: number) => {
    for (let i = 0; i < 200; i++) {
      if ((await status(id)) === wanted) return;
      await advance(step);
    }
    throw new Error(`${id} never reached ${wanted}`);
  };
  /** Every RL event page with the cursors the server hands out, to the end. */
  const pageEvents = async (id: string, limit: number) => {
    let after: string | undefined;
    for (let i = 0; i < 500; i++) {
      const page = await ok('GET', `/v1/workloads/${id}/rl-events?limit=${limit}${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`);
      if (!page.has_more) return page;
      after = page.next_cursor;
    }
    throw new Error('rl-events never ended');
  };
  const pageLifecycle = async (id: string) => {
    let after = 0;
    for (let i = 0; i < 500; i++) {
      const page = await ok('GET', `/v1/workloads/${id}/events?after=${after}`);
      if (page.events.length === 0) return;
      after = Math.max(...page.events.map((e: any) => e.id));
    }
  };
  const pageLive = async (id: string) => {
    let after = '';
    for (let i = 0; i < 500; i++) {
      const page = await ok('GET', `/v1/workloads/${id}/logs/live?after=${encodeURIComponent(after)}`);
      if (page.chunks.length === 0) return;
      after = page.next_cursor;
    }
  };
  const preview = (configuration: Record<string, unknown>) => ok('POST', '/v1/rl-runs/preview', { body: configuration });
  const launch = (p: any, key: string, extra: Record<string, unknown> = {}) =>
    call('POST', '/v1/rl-runs', { body: { ...p.configuration, review_token: p.review_token, ...extra }, headers: { 'idempotency-key': key } });
  const legCounting = (extra: Record<string, unknown>) => ({ recipe_id: 'reasoning-gym-leg-counting', recipe_version: '1.0.0', ...extra });

  // The run's transcript is left to diff only when it differs from the recording, or stopped short.
  const keep = () => writeFileSync(ACTUAL, `${JSON.stringify(transcript, null, 2)}\n`);
  try {
    await scenario();
  } catch (err) {
    if (!RECORD) keep();
    throw err;
  }
  async function scenario() {
    // --- the tenant, its clock and its webhook
    await ok('PUT', '/_mock/clock', { body: { mode: 'manual' } });
    await ok('GET', '/_mock/clock');
    await ok('GET', '/v1/me');
    await ok('PUT', '/v1/webhooks', { body: { url: receiver.url, secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` } });
    await ok('GET', '/v1/webhooks');

    // --- an evaluate run, its launch replayed, and the same key reused for another request
    const evalPreview = await preview(legCounting({ mode: 'evaluate', evaluation_tasks: 6, seed: 11 }));
    const evaluate = (await launch(evalPreview, 'golden-evaluate')).body.id as string;
    await flush(); // the receiver's one 500: the only delivery there is
    await ok('GET', '/_mock/webhooks/deliveries?state=pending');
    await launch(evalPreview, 'golden-evaluate');
    await launch(evalPreview, 'golden-evaluate', { seed: 12 });
    await ok('POST', '/_mock/faults', { body: { method: 'GET', path: '/v1/workloads/{id}', times: 1, action: { type: 'error', status: 503, error: 'unavailable', retry_after: 1.5 } } });
    await call('GET', `/v1/workloads/${evaluate}`);
    await ok('POST', '/_mock/faults', { body: { path: `/webhook/${evaluate}/workload.completed`, action: { type: 'error', status: 502, error: 'bad_gateway' } } });

    // --- a train run whose launch answer is lost after the commit, then replayed; recovered, with drops
    const trainPreview = await preview(legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 6, seed: 7 }));
    await ok('POST', '/_mock/faults', { body: { method: 'POST', path: '/v1/rl-runs', action: { type: 'drop_response' } } });
    await launch(trainPreview, 'golden-train');
    const train = (await launch(trainPreview, 'golden-train')).body.id as string;
    await ok('GET', '/_mock/faults');
    await untilStatus(train, 'running', 10);
    await advance(120);
    await ok('POST', `/_mock/workloads/${train}/recover`, { body: { replay_last: 3 } });
    await ok('GET', `/v1/workloads/${train}`);
    await ok('POST', `/_mock/workloads/${train}/drop-events`, { body: { count: 2 } });
    await untilStatus(train, 'running', 10);
    await advance(60);
    await ok('GET', `/v1/workloads/${train}/routing`);
    await pageEvents(train, 7);

    // --- an evaluate run frozen and resumed
    const frozen = (await launch(await preview(legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 4, seed: 3 })), 'golden-frozen')).body.id as string;
    await untilStatus(frozen, 'running', 10);
    await advance(20);
    await ok('POST', `/v1/workloads/${frozen}/freeze`, { body: {} });
    await call('POST', `/v1/workloads/${frozen}/freeze`, { body: {} });
    await advance(5);
    await ok('GET', `/v1/workloads/${frozen}/freeze`);
    await advance(30);
    await ok('GET', `/v1/workloads/${frozen}/freeze`);
    await advance(3600);
    await ok('GET', `/v1/workloads/${frozen}`);
    await ok('POST', `/v1/workloads/${frozen}/resume`, { body: {} });
    await call('POST', `/v1/workloads/${frozen}/resume`, { body: {} });

    // --- a custom run with an uploaded asset, reporting its own events
    const script = 'print("training")\n';
    const sha = createHash('sha256').update(script).digest('hex');
    const upload = { type: 'application/octet-stream', raw: script, headers: { 'x-nodus-sha256': sha, 'idempotency-key': 'golden-asset' } };
    const asset = (await ok('POST', '/v1/assets/upload?name=train.py', upload)).id as string;
    await ok('POST', '/v1/assets/upload?name=train.py', upload);
    await call('POST', '/v1/assets/upload?name=other.py', upload);
    await ok('GET', `/v1/assets/${asset}`);
    await ok('GET', '/v1/assets');
    const submit = {
      headers: { 'idempotency-key': 'golden-custom' },
      body: {
        requirements: { compute_class: 'accelerator' }, outcome: { max_cost_usd: 3 },
        continuity: { mode: 'checkpointed', resume_on_interruption: true },
        source: { image: 'python:3.11-slim', command: ['python', 'train.py'], asset_id: asset },
        rl: { schema_version: 1, environment_id: 'custom', mode: 'train', model: 'my-model', planned_tasks: 4 },
      },
    };
    const custom = (await ok('POST', '/v1/workloads', submit)).id as string;
    await ok('POST', '/v1/workloads', submit);
    await call('DELETE', `/v1/assets/${asset}`);
    await ok('GET', `/_mock/assets/${asset}/content`);
    await ok('POST', `/_mock/workloads/${custom}/rl-events`, {
      type: 'text/plain',
      raw: [
        'training starts',
        'nodus.rl_event {"event_id":"e1","phase":"evaluation","task_id":"t1","attempt":1,"kind":"task_started"}',
        'nodus.rl_event {"event_id":"e2","phase":"evaluation","task_id":"t1","attempt":1,"kind":"task_completed","outcome":"passed","reward":1}',
        'nodus.rl_event {"event_id":"e3","phase":"evaluation","task_id":"t2","attempt":1,"kind":"task_started"}',
        'nodus.rl_event {"event_id":"e4","phase":"evaluation","task_id":"t2","attempt":1,"kind":"task_completed","outcome":"failed","reward":0}',
      ].join('\n'),
    });
    await ok('POST', `/_mock/workloads/${custom}/rl-events`, {
      body: { events: [
        { event_id: 'e2', phase: 'evaluation', task_id: 't1', attempt: 1, kind: 'task_completed', outcome: 'passed', reward: 1 },
        { event_id: 'e5', phase: 'training', task_id: 't3', attempt: 1, kind: 'task_started' },
        { event_id: 'e6', phase: 'training', task_id: 't3', attempt: 1, kind: 'task_paused' },
      ] },
    });
    await pageEvents(custom, 2);
    const receipt = (n: number, extra: Record<string, unknown>) => ({
      attempt_id: `gat-${n}`, request_id: `grq-${n}`, task_id: `t${n}`, candidate_sha256: 'a'.repeat(64), plan_sha256: 'b'.repeat(64),
      manifest_sha256: 'c'.repeat(64), cleanup_complete: true, ...extra,
    });
    await ok('PUT', `/_mock/workloads/${custom}/grading-plan`, { body: { receipts: [receipt(1, { state: 'completed', reward: 1 }), receipt(2, { state: 'completed', reward: 0 })] } });

    // --- an environment's example run, the third keyed write, replayed and then cancelled
    const examples = '/v1/rl-environments/gsm8k/examples/gsm8k-trained/runs';
    const example = (await ok('POST', examples, { body: {}, headers: { 'idempotency-key': 'golden-example' } })).id as string;
    await ok('POST', examples, { body: {}, headers: { 'idempotency-key': 'golden-example' } });
    await call('POST', examples, { body: { name: 'another name' }, headers: { 'idempotency-key': 'golden-example' } });
    await advance(30);
    await ok('POST', `/v1/workloads/${example}/cancel`, { body: {} });
    await call('POST', `/v1/workloads/${example}/cancel`, { body: {} });

    // --- the levers: a budget that refuses, a review that expires, a recipe taken away; each launch
    // sends a review made before the lever moved, as a client that previewed earlier would
    const small = legCounting({ mode: 'evaluate', evaluation_tasks: 4, seed: 5 });
    const reviewed = await preview(small);
    await ok('PUT', '/_mock/budget', { body: { monthly_spend_cap_usd: 1, month_to_date_usd: 0.99 } });
    await preview(small);
    await launch(reviewed, 'golden-budget');
    await call('DELETE', '/_mock/budget');
    await ok('PUT', '/_mock/levers', { body: { review_expiry: true } });
    const stale = await preview(small);
    await advance(16 * 60);
    await launch(stale, 'golden-stale');
    await ok('PUT', '/_mock/levers', { body: { review_expiry: false } });
    await ok('PATCH', '/_mock/recipes/reasoning-gym-leg-counting', { body: { available: false, unavailable_reason: 'paused for the golden transcript' } });
    await preview(small);
    await launch(reviewed, 'golden-unavailable');
    await ok('PATCH', '/_mock/recipes/reasoning-gym-leg-counting', { body: { available: true } });

    // --- everything to its end; the evidence of each run read to the end
    await untilStatus(evaluate, 'completed', 600);
    await untilStatus(train, 'completed', 600);
    await untilStatus(frozen, 'completed', 600);
    await ok('GET', `/v1/workloads/${frozen}/freeze`);
    await advance(3600);
    await ok('GET', `/v1/workloads/${custom}`);
    await call('DELETE', `/v1/assets/${asset}`);
    await ok('GET', `/v1/assets/${asset}`);
    for (const id of [evaluate, train, frozen, custom, example]) {
      await ok('GET', `/v1/workloads/${id}`);
      await call('GET', `/v1/workloads/${id}/rl-summary`);
      await call('GET', `/v1/workloads/${id}/rl-grading-results?revision=1`);
      await pageEvents(id, 50);
      await pageLifecycle(id);
      await call('GET', `/v1/workloads/${id}/logs`);
      await pageLive(id);
      await call('GET', `/v1/workloads/${id}/artifacts`);
      await call('GET', `/v1/workloads/${id}/ledger`);
      const outputs = await call('GET', `/v1/workloads/${id}/outputs`);
      for (const o of outputs.status === 200 ? outputs.body.outputs ?? [] : []) await call('GET', `/v1/workloads/${id}/outputs/${encodeURIComponent(o.name)}`);
    }
    await ok('GET', '/v1/workloads');
    await flush();
    const deliveries = (await ok('GET', '/_mock/webhooks/deliveries?limit=1000')).deliveries as any[];
    // The delivery the receiver refused once, sent again.
    await ok('POST', `/_mock/webhooks/deliveries/${deliveries[0].id}/redeliver`);
    await flush();
    await ok('GET', `/_mock/webhooks/deliveries?workload_id=${evaluate}&limit=2`);
    await ok('GET', '/_mock/webhooks/deliveries?state=failed');
    await ok('GET', '/_mock/faults');
    await ok('GET', '/_mock/requests?limit=1000');
    await ok('DELETE', '/v1/webhooks');
  }

  // The receiver's side: what each delivery carried on the wire, ordered by webhook-id and attempt
  // (deliveries of different workloads arrive side by side, in no fixed order).
  const received = receiver.received
    .map((r, arrival) => ({ arrival, id: String(r.headers['webhook-id']), headers: r.headers, body: r.body }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.arrival - b.arrival))
    .map(({ id, headers, body }) => ({ id, timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'], sha256: createHash('sha256').update(body).digest('hex') }));
  transcript.push({ n: transcript.length + 1, method: 'RECEIVED', path: mask(receiver.url), status: null, headers: {}, json: received });

  if (RECORD) {
    mkdirSync(dirname(FIXTURE), { recursive: true });
    writeFileSync(FIXTURE, `${JSON.stringify(transcript, null, 2)}\n`);
    t.pass(`recorded ${transcript.length} exchanges into ${FIXTURE}`);
    return;
  }
  const golden = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Exchange[];
  const first = transcript.findIndex((e, i) => JSON.stringify(e) !== JSON.stringify(golden[i]));
  if (first === -1 && golden.length === transcript.length) {
    rmSync(ACTUAL, { force: true });
    t.pass(`${transcript.length} exchanges as recorded`);
    return;
  }
  keep();
  const at = first === -1 ? transcript.length : first;
  const name = (e: Exchange | undefined) => (e ? `#${e.n} ${e.method} ${e.path}` : 'nothing');
  t.same(transcript[at], golden[at], `the first exchange that differs: ${name(transcript[at])} (recorded: ${name(golden[at])}); this run's whole transcript is in ${ACTUAL}`);
  t.equal(transcript.length, golden.length, 'as many exchanges as recorded');
});
