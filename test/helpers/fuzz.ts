import fc from 'fast-check';
import { freshKey, type ListeningServer, type TestServer } from './server.js';
import { launchRun, legCounting } from './rl.js';

/** One operation of the served OpenAPI document. */
interface Operation {
  method: string;
  template: string;
  /** The statuses its responses name (`default` aside). */
  documented: string[];
}

export async function operations(s: TestServer): Promise<Operation[]> {
  const doc = (await s.call('GET', '/openapi.json', { key: null })).body as { paths: Record<string, Record<string, { responses: object }>> };
  return Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), template, documented: Object.keys(op.responses) })),
  );
}

interface FuzzRequest {
  op: Operation;
  /** Use the tenant that owns `workloadId` (else a fresh tenant per request). */
  owned: boolean;
  ids: string[];
  query: string;
  contentType: string | null;
  body: string | null;
  headers: Record<string, string>;
}

const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', '..', '%2e%2e', '%00', ' ', '\u202e', 'NaN', '-1', '1e309', '9'.repeat(40), "'; DROP TABLE workloads;--", 'wl_' + 'A'.repeat(20), '{"a":1}', 'c1.1.xxxxxxxxxxxxxxxxxxxxxx'),
  fc.string({ minLength: 200, maxLength: 400 }),
);

/** Values a body field might take: right-ish, wrong type, or absurd. */
const fieldValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, -1, 0, 1, 2 ** 31, 2 ** 53, -0, 1.5, 1e308, true, '', 'train', 'evaluate', [], {}),
  hostileText,
);

const knownFields = ['recipe_id', 'recipe_version', 'mode', 'evaluation_tasks', 'training_steps', 'seed', 'include_traces', 'review_token',
  'seconds', 'scale', 'available', 'unavailable_reason', 'monthly_spend_cap_usd', 'month_to_date_usd', 'count', 'replay_last', 'reason',
  'events', 'stage_id', 'generation', 'receipts', 'revision', 'name', 'source', 'stages', 'rl', 'requirements', 'continuity', 'outcome',
  'method', 'path', 'times', 'after', 'action'];

const jsonBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.dictionary(fc.constantFrom(...knownFields), fieldValue, { maxKeys: 6 }).map((v) => JSON.stringify({ ...legCounting(), ...v })),
  fc.dictionary(fc.constantFrom(...knownFields), fieldValue, { maxKeys: 8 }).map((v) => JSON.stringify(v)),
  hostileText,
  fc.constantFrom('{', '{"a":1,"a":2}', '{"__proto__":{"x":1}}', '[]', 'null', '1', '"x"', '{"events":[{"kind":"task_started"}]}'),
);

const queryString = fc
  .array(fc.tuple(fc.constantFrom('limit', 'offset', 'after', 'status', 'scope', 'revision', 'stage', 'generation', 'method', 'path', 'x'), hostileText), { maxLength: 4 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}` : ''));

function fuzzRequests(ops: Operation[]): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    op: fc.constantFrom(...ops),
    owned: fc.boolean(),
    ids: fc.array(fc.oneof(fc.constant('@owned'), hostileText), { minLength: 3, maxLength: 3 }),
    query: queryString,
    contentType: fc.constantFrom(null, 'application/json', 'application/json', 'text/plain', 'application/xml', 'application/json; charset=latin1', 'multipart/form-data'),
    body: fc.option(jsonBody, { nil: null }),
    headers: fc.record({ 'idempotency-key': hostileText.filter((v) => /^[\x20-\x7e]*$/.test(v)) }, { requiredKeys: [] }),
  });
}

interface FuzzTarget {
  s: ListeningServer;
  ownerKey: string;
  workloadId: string;
}

/** A server with one launched workload whose id fuzzed paths can name. */
export async function fuzzTarget(s: ListeningServer): Promise<FuzzTarget> {
  const ownerKey = freshKey();
  const { id } = await launchRun(s, legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 2 }), 'fuzz-run', ownerKey);
  return { s, ownerKey, workloadId: id };
}

/** Sends one fuzzed request; resolves with a problem description, or undefined when it was answered well. */
async function sendFuzzed(target: FuzzTarget, r: FuzzRequest): Promise<string | undefined> {
  let i = 0;
  const path = r.op.template.replace(/\{[^}]+\}/g, () => {
    const id = r.ids[i++ % r.ids.length];
    return id === '@owned' ? target.workloadId : encodeURIComponent(id);
  });
  // Fault rules and resets made by fuzzing stay in throwaway tenants: they would slow down or empty
  // the tenant whose workload the other requests explore.
  const owned = r.owned && !path.startsWith('/_mock/faults') && path !== '/_mock/reset';
  const headers: Record<string, string> = { authorization: `Bearer ${owned ? target.ownerKey : freshKey()}`, ...r.headers };
  if (r.contentType) headers['content-type'] = r.contentType;
  const hasBody = r.body !== null && r.op.method !== 'GET';
  let res: Response;
  try {
    res = await fetch(target.s.url + path + r.query, { method: r.op.method, headers, body: hasBody ? r.body : undefined });
  } catch (err) {
    return `${r.op.method} ${path}${r.query}: no answer (${(err as Error).message})`;
  }
  const text = await res.text();
  const where = `${r.op.method} ${path}${r.query} ${r.contentType ?? ''} ${hasBody ? (r.body ?? '').slice(0, 120) : ''}`;
  if (res.status >= 500) return `${where} → ${res.status} ${text.slice(0, 300)}`;
  if (!res.headers.get('x-request-id')) return `${where} → no X-Request-Id`;
  if (res.status >= 400) {
    let body: { error?: unknown; code?: unknown; message?: unknown; fix?: unknown; url?: unknown };
    try {
      body = JSON.parse(text);
    } catch {
      return `${where} → ${res.status} without a JSON envelope: ${text.slice(0, 200)}`;
    }
    // The secrets routes answer SandboxError (code, message, fix, url); every other route Error.
    const sandbox = r.op.template.startsWith('/v1/secrets');
    const code = sandbox ? body.code : body.error;
    const complete = typeof code === 'string' && typeof body.message === 'string' && (!sandbox || (typeof body.fix === 'string' && typeof body.url === 'string'));
    if (!complete) return `${where} → ${res.status} envelope ${text.slice(0, 200)}`;
    if (!r.op.documented.includes(String(res.status))) return `${where} → ${res.status} ${code}, which the document does not list`;
  }
  return undefined;
}

/** Runs `runs` fuzzed requests; returns every problem found (empty when the server held up). */
export async function fuzz(target: FuzzTarget, runs: number, seed: number): Promise<string[]> {
  const ops = await operations(target.s);
  const problems: string[] = [];
  await fc.assert(
    fc.asyncProperty(fuzzRequests(ops), async (r) => {
      const problem = await sendFuzzed(target, r);
      if (problem) problems.push(problem);
      return true;
    }),
    { numRuns: runs, seed },
  );
  return problems;
}
