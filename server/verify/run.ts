import { type Answer, Contract, type Operation } from './answer.js';
import { type Finding, collapse, isDrift } from './findings.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Why the check could not be made: exit 2. */
export class VerifyStop extends Error {
  override name = 'VerifyStop';
}

export interface VerifyOptions {
  baseUrl: URL;
  apiKey: string;
  /** operationIds to check; undefined checks every one of CHECKED_OPERATIONS. */
  only?: ReadonlySet<string>;
  /** How long one operation's whole answer may take; DEFAULT_TIMEOUT_MS when absent. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/** One operation's line of the report. */
export interface OperationResult {
  operation: string;
  method: string;
  path: string;
  /** The answer's status, or null when the operation was not called. */
  status: number | null;
  /** Why it was not called: the account holds nothing to call it with. */
  skipped?: string;
  /** Why it was called (or would have been) but its answer could not be judged. */
  unchecked?: string;
}

export interface VerifyReport {
  documentVersion: string;
  operations: OperationResult[];
  findings: Finding[];
  drift: boolean;
  /** Values the target sent under a token's or a secret's name: the report must never print them. */
  secrets: string[];
}

/**
 * The operations verify calls, in order: each is free and changes nothing on the target (reads,
 * the preview and validate, which launch nothing). Launches, submits, uploads, imports, deletes,
 * cancels, freezes, resumes and the webhook's PUT are left out on purpose, and so are output
 * downloads (bytes the account may pay to move) and the /_mock routes (the real service has none).
 */
export const CHECKED_OPERATIONS = [
  'identity', 'listRLRecipes', 'previewRLRun', 'validateWorkload',
  'listRLEnvironments', 'getRLEnvironment', 'getRLExampleWorkload',
  'listWorkloads', 'getWorkload', 'listWorkloadEvents', 'listWorkloadOutputs', 'getWorkloadLogs', 'liveLogs',
  'getWorkloadFreeze', 'listWorkloadArtifacts', 'getWorkloadLedger', 'getWorkloadRouting',
  'listWorkloadRLEvents', 'getRLSummary', 'getWorkloadRLGradingResults',
  'listAssets', 'getAsset', 'getWebhook',
] as const;

/** The reads of one workload, with the query each needs. */
const WORKLOAD_READS: [string, (w: Json) => Record<string, string>][] = [
  ['getWorkload', () => ({})], ['listWorkloadEvents', () => ({})], ['listWorkloadOutputs', () => ({})],
  ['getWorkloadLogs', () => ({})], ['liveLogs', () => ({})], ['getWorkloadFreeze', () => ({})],
  ['listWorkloadArtifacts', () => ({})], ['getWorkloadLedger', () => ({})], ['getWorkloadRouting', () => ({})],
  ['listWorkloadRLEvents', () => ({})], ['getRLSummary', () => ({})],
  ['getWorkloadRLGradingResults', (w) => ({ revision: String(typeof w.revision === 'number' && Number.isInteger(w.revision) && w.revision > 0 ? w.revision : 1) })],
];

/** A workload the validate call describes: one stage, no assets, nothing that needs an account's setup. */
const VALIDATE_BODY = {
  requirements: { compute_class: 'accelerator' },
  stages: [{ id: 'main', source: { image: 'python:3.11-slim', command: ['python', '-c', 'pass'] } }],
};

/** Answers larger than this are not read: no page of the document comes near it. */
const MAX_ANSWER_MIB = 32;
const MAX_ANSWER_BYTES = MAX_ANSWER_MIB * 1024 * 1024;

/** The first object of a list whose `id` is a string and that `fits`. */
const first = (list: unknown, fits: (x: Json) => boolean = () => true): (Json & { id: string }) | undefined =>
  Array.isArray(list) ? list.find((x): x is Json & { id: string } => isObject(x) && typeof x.id === 'string' && fits(x)) : undefined;

async function readCapped(res: Response): Promise<string | null> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await res.body.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

type FetchError = Error & { cause?: { code?: string; message?: string } };

const networkReason = (e: FetchError) => e.cause?.code ?? e.cause?.message ?? e.message;

/**
 * A connection that could not be opened: every later call would fail alike, so the run stops. A
 * connection that opened and then broke or stalled leaves that one operation unchecked.
 */
const UNREACHABLE = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_CONNECT_TIMEOUT)$|CERT|TLS|SSL|SIGNATURE/;

const SECRET_NAME = /token|secret|signature|password|key/i;

/** Strings held under a secret-sounding name anywhere in a body. */
function collectSecrets(value: unknown, into: Set<string>, depth = 0): void {
  if (typeof value !== 'object' || value === null || depth > 32) return;
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' && v.length >= 8 && SECRET_NAME.test(k)) into.add(v);
    else collectSecrets(v, into, depth + 1);
  }
}

class Session {
  readonly results: OperationResult[] = [];
  readonly findings: Finding[] = [];
  readonly secrets = new Set<string>();
  /** Operations whose answer could not be read, with why: those that needed it are not called. */
  private readonly unread = new Map<string, string>();

  constructor(private readonly contract: Contract, private readonly options: VerifyOptions) {}

  private wanted(id: string): boolean {
    return this.options.only === undefined || this.options.only.has(id);
  }

  private op(id: string): Operation {
    const op = this.contract.operation(id);
    if (!op) throw new VerifyStop(`the document has no operation ${id}`);
    return op;
  }

  /**
   * Records an operation that could not be called, when it was asked for: skipped for `reason`
   * when the answer of `source` said so, unchecked when that answer could not be read.
   */
  skip(id: string, source: string, reason: string): void {
    if (!this.wanted(id)) return;
    const op = this.op(id);
    const unread = this.unread.get(source);
    if (unread === undefined) this.results.push({ operation: id, method: op.method, path: op.path, status: null, skipped: reason });
    else this.unchecked(op, null, `not called: the answer of ${source} could not be read`);
  }

  private unchecked(op: Operation, status: number | null, reason: string): void {
    this.results.push({ operation: op.id, method: op.method, path: op.path, status, unchecked: reason });
    this.findings.push({ operation: op.id, pointer: '/', kind: 'unchecked', message: reason });
  }

  /**
   * Calls an operation and checks its answer when it was asked for; `feeds` are the operations
   * that need its answer, so it is called (unchecked) when only they were asked for. Resolves with
   * the parsed body of a 2xx JSON answer, else undefined.
   */
  async call(id: string, request: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown; feeds?: string[] } = {}): Promise<Json | undefined> {
    const wanted = this.wanted(id);
    if (!wanted && !(request.feeds ?? []).some((f) => this.wanted(f))) return undefined;
    const op = this.op(id);
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(request.params?.[name] ?? ''));
    const url = new URL(this.options.baseUrl.pathname.replace(/\/$/, '') + path, this.options.baseUrl);
    for (const [k, v] of Object.entries(request.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.apiKey}`, accept: 'application/json, text/plain;q=0.5, */*;q=0.1' };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let res: Response | undefined;
    let text: string | null = null;
    let failure: string | undefined;
    try {
      res = await fetch(url, {
        method: op.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await readCapped(res);
      if (text === null) failure = `the answer is over ${MAX_ANSWER_MIB} MiB, so it was not read`;
    } catch (err) {
      const e = err as FetchError;
      if (res === undefined && UNREACHABLE.test(networkReason(e))) {
        throw new VerifyStop(`${op.method} ${op.path} got no answer from ${this.options.baseUrl.origin}: ${networkReason(e)}`);
      }
      failure = e.name === 'TimeoutError'
        ? `no ${res === undefined ? '' : 'complete '}answer within ${timeoutMs / 1000} s`
        : `the connection broke ${res === undefined ? 'before' : 'during'} the answer: ${networkReason(e)}`;
    }
    if (res?.status === 401) throw new VerifyStop(`${op.method} ${op.path} answered 401: the target refused the API key`);
    const mediaType = (res?.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    let body: unknown = text;
    if (failure === undefined && (mediaType === 'application/json' || mediaType.endsWith('+json'))) {
      try {
        body = JSON.parse(text ?? '');
      } catch {
        failure = `the body is not JSON although it says ${mediaType}`;
      }
    }
    if (failure !== undefined || res === undefined) {
      const reason = failure ?? 'no answer';
      this.unread.set(id, reason);
      if (wanted) this.unchecked(op, res?.status ?? null, reason);
      return undefined;
    }
    if (wanted) this.results.push({ operation: id, method: op.method, path: op.path, status: res.status });
    collectSecrets(body, this.secrets);
    if (wanted) this.findings.push(...this.contract.check(op, { status: res.status, mediaType, body } satisfies Answer));
    return res.ok && isObject(body) ? body : undefined;
  }
}

/** Calls the free operations of the target in order, each id taken from an earlier answer. */
async function walk(s: Session): Promise<void> {
  await s.call('identity');

  const recipes = await s.call('listRLRecipes', { feeds: ['previewRLRun'] });
  const recipe = first(recipes?.recipes, (r) => typeof r.version === 'string' && r.available !== false);
  if (recipe) {
    const modes = Array.isArray(recipe.modes) ? recipe.modes : [];
    const mode = modes.includes('evaluate') ? 'evaluate' : text(modes[0]);
    await s.call('previewRLRun', { body: { recipe_id: recipe.id, recipe_version: recipe.version, ...(mode ? { mode } : {}) } });
  } else s.skip('previewRLRun', 'listRLRecipes', 'no available recipe to preview');
  await s.call('validateWorkload', { body: VALIDATE_BODY });

  const environments = await s.call('listRLEnvironments', { feeds: ['getRLEnvironment', 'getRLExampleWorkload'] });
  const environment = first(environments?.environments);
  if (environment) {
    const detail = await s.call('getRLEnvironment', { params: { environment: environment.id }, feeds: ['getRLExampleWorkload'] });
    const launch = (detail ?? environment).launch;
    const example = first(isObject(launch) ? launch.examples : undefined);
    if (example) await s.call('getRLExampleWorkload', { params: { environment: environment.id, example: example.id } });
    else s.skip('getRLExampleWorkload', 'getRLEnvironment', 'the environment lists no example');
  } else {
    s.skip('getRLEnvironment', 'listRLEnvironments', 'no environment listed');
    s.skip('getRLExampleWorkload', 'listRLEnvironments', 'no environment listed');
  }

  const workloads = await s.call('listWorkloads', { feeds: WORKLOAD_READS.map(([id]) => id) });
  const workload = first(workloads?.workloads);
  for (const [id, query] of WORKLOAD_READS) {
    if (workload) await s.call(id, { params: { id: workload.id }, query: query(workload) });
    else s.skip(id, 'listWorkloads', 'the account has no workload to read');
  }

  const assets = await s.call('listAssets', { feeds: ['getAsset'] });
  const asset = first(assets?.assets);
  if (asset) await s.call('getAsset', { params: { id: asset.id } });
  else s.skip('getAsset', 'listAssets', 'the account has no asset to read');

  await s.call('getWebhook');
}

/** Checks the target against the document; throws VerifyStop when no judgement can be made. */
export async function verifyTarget(document: Json, options: VerifyOptions): Promise<VerifyReport> {
  const contract = new Contract(document);
  const session = new Session(contract, options);
  await walk(session);
  const findings = collapse(session.findings);
  return {
    documentVersion: contract.version,
    operations: session.results,
    findings,
    drift: findings.some(isDrift),
    secrets: [...session.secrets],
  };
}
