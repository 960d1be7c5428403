import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import type { JournalKind, JournalRecord, NewJournalRow } from '../../store/journal.js';
import { JOURNAL_HEADER_LIMITS, UNJOURNALED_HEADERS } from '../../openapi/mock.js';
import { SECRET_NAME } from '../../openapi/secrets.js';
import { nestsTooDeep } from '../domain/json-text.js';

/**
 * Whether a request path is one whose body may hold a secret: the secrets routes and every near
 * miss of them, that is any path that names `secret` in any case, percent-encoded (once or more)
 * or not. A client that gets the path wrong still sent its value; the journal and the request log
 * treat the request as a put all the same.
 */
export function touchesSecrets(path: string): boolean {
  let decoded = path;
  // Each pass shortens the text, so this ends; undecodable escapes are left as they are.
  for (let previous = ''; decoded !== previous && decoded.includes('%');) {
    previous = decoded;
    decoded = decoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return /secret/i.test(decoded);
}

export const JOURNAL_BODY_LIMIT_BYTES = 16 * 1024;
/** Valid keys are at most 256 characters; a longer one is kept only this far. */
const KEY_LIMIT_CHARS = 1024;

/**
 * The body text as it arrived: the JSON parser keeps the text it parsed, text routes get a string.
 * An asset upload is recorded by its size and hash, never its bytes.
 */
function receivedBody(request: FastifyRequest): { text: string; json: boolean; bytes?: number } | null {
  if (request.upload) return { text: JSON.stringify(request.upload), json: true, bytes: request.upload.bytes };
  if (typeof request.rawBody === 'string') return request.rawBody === '' ? null : { text: request.rawBody, json: true };
  if (typeof request.body === 'string' && request.body !== '') return { text: request.body, json: false };
  return null;
}

/**
 * The body with every top-level field that `keep` refuses replaced. One that is not a JSON object
 * cannot be redacted field by field, so nothing of it is kept: its text may hold the secret all the same.
 */
function redact(body: { text: string; json: boolean }, keep: (field: string, value: unknown) => boolean): { text: string; json: boolean } | null {
  if (nestsTooDeep(body.text)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const record = parsed as Record<string, unknown>;
  for (const [field, value] of Object.entries(record)) if (!keep(field, value)) record[field] = '[redacted]';
  return { text: JSON.stringify(record), json: true };
}

/**
 * A request to a secrets path keeps its field names (a misspelt `Value` shows as such) and a
 * `name` that is a secret's name, whatever its method, route or answer; the other routes keep all
 * but their `journalRedact` fields.
 */
function keptBody(request: FastifyRequest, secrets: boolean, body: { text: string; json: boolean }): { text: string; json: boolean } | null {
  if (secrets) return redact(body, (field, value) => field === 'name' && typeof value === 'string' && SECRET_NAME.test(value));
  const fields = request.routeOptions.config?.journalRedact;
  return fields?.length ? redact(body, (field) => !fields.includes(field)) : body;
}

/** The first 16 KiB, cut back to a character boundary. */
function cut(text: string): { text: string; truncated: boolean } {
  // A character is at most 3 UTF-8 bytes (a surrogate pair is 2 characters for 4): most bodies need no copy.
  if (text.length * 3 <= JOURNAL_BODY_LIMIT_BYTES) return { text, truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= JOURNAL_BODY_LIMIT_BYTES) return { text, truncated: false };
  let end = JOURNAL_BODY_LIMIT_BYTES;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), truncated: true };
}

/**
 * The headers a test may assert on: all as they arrived but the credentials, until the row's
 * share (JOURNAL_HEADER_LIMITS) is used up. Node joins a repeated header into one value, and
 * reads each byte as one character (latin1), so a length is the bytes that came.
 */
function keptHeaders(request: FastifyRequest): { headers: Record<string, string>; truncated: boolean } {
  const headers: Record<string, string> = {};
  let count = 0;
  let bytes = 0;
  let truncated = false;
  const sent = request.headers;
  for (const name in sent) {
    const value = sent[name];
    if (typeof value !== 'string' || UNJOURNALED_HEADERS.includes(name)) continue;
    const size = name.length + value.length;
    if (count === JOURNAL_HEADER_LIMITS.count || bytes + size > JOURNAL_HEADER_LIMITS.bytes) {
      truncated = true;
      continue;
    }
    headers[name] = value;
    count++;
    bytes += size;
  }
  return { headers, truncated };
}

function journalRow(request: FastifyRequest, reply: FastifyReply, kind: JournalKind, atMs: number, wallMs: number): NewJournalRow {
  const queryAt = request.url.indexOf('?');
  const path = queryAt === -1 ? request.url : request.url.slice(0, queryAt);
  const secrets = touchesSecrets(path);
  const body = receivedBody(request);
  const key = request.headers['idempotency-key'];
  const fault = request.fault;
  // A reset or dropped connection got no answer, whatever the handler had prepared.
  const unanswered = fault?.type === 'reset' || fault?.type === 'drop_response' || !reply.raw.headersSent;
  const stored = body && keptBody(request, secrets, body);
  const kept = stored && cut(stored.text);
  // A secrets path keeps no header either: a client that got the route wrong may have put the value in one.
  const headers = secrets ? { headers: {}, truncated: false } : keptHeaders(request);
  return {
    kind,
    atMs,
    wallMs,
    method: request.method,
    path,
    // The secrets routes take no query: one there is a near miss and may carry the value.
    query: queryAt === -1 || secrets ? '' : request.url.slice(queryAt + 1),
    headers: headers.headers,
    headersTruncated: headers.truncated,
    status: unanswered ? null : reply.statusCode,
    requestId: request.id,
    idempotencyKey: typeof key === 'string' ? key.slice(0, KEY_LIMIT_CHARS) : null,
    replayed: request.replayed,
    fault: fault?.type ?? null,
    faultId: fault?.id ?? null,
    body: kept ? kept.text : null,
    bodyJson: body?.json ?? false,
    bodyBytes: body ? body.bytes ?? Buffer.byteLength(body.text, 'utf8') : 0,
    bodyTruncated: kept?.truncated ?? false,
    durationMs: Math.round(reply.elapsedTime * 10) / 10,
  };
}

/** How long a journaled row may wait for its commit, and how many may wait at most. */
const FLUSH_AFTER_MS = 10;
const FLUSH_AT_ROWS = 1000;

/**
 * The request journal: one row per /v1 request of a known tenant, and per call of its own to
 * /_mock but those that read the journal (a route's `journal: false`), written when the response
 * closes. Node emits `close` for every outcome (answered, reset, dropped, client gone) while
 * onResponse misses the last three, so this one listener sees them all. It runs after the answer
 * has left, so journaling can never change a response; a failure is logged, not raised. The
 * headers are kept but the credentials (UNJOURNALED_HEADERS).
 *
 * Rows wait in memory and are committed together, in a transaction of their own: FLUSH_AFTER_MS
 * after the first of them, or once FLUSH_AT_ROWS wait. A commit per request, and then one per
 * event-loop turn, was the largest single cost of a /v1 read (bench/, profile of GET
 * /v1/rl-recipes). They never ride a state change's transaction: a launch commits its own rows
 * and no other request's, and a failed journal write cannot undo a state change, nor the reverse.
 * The journal's readers see every row all the same: each /_mock handler (the journal's routes and
 * reset among them) runs after what is waiting has been written, as does closing the server.
 */
export default fp(async function journal(app) {
  const { requests } = app.services;
  let pending: JournalRecord[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const entries = pending;
    pending = [];
    try {
      requests.appendJournal(entries);
    } catch (err) {
      app.log.error({ err, requests: entries.map((e) => e.row.requestId) }, 'request journal: could not record these requests');
    }
  };
  const record = (entry: JournalRecord) => {
    const waiting = pending.push(entry);
    if (waiting >= FLUSH_AT_ROWS) flush();
    else if (waiting === 1) timer = setTimeout(flush, FLUSH_AFTER_MS);
  };
  app.addHook('onClose', async () => flush());
  const note = (kind: JournalKind, request: FastifyRequest, reply: FastifyReply): void => {
    // Only control routes opt out; routeOptions builds an object on every read.
    if (kind === 'control' && request.routeOptions.config?.journal === false) return;
    const tenantId = request.tenant.id;
    let arrival: { atMs: number; wallMs: number };
    try {
      arrival = requests.arrival(tenantId);
    } catch (err) {
      request.log.error({ err }, 'request journal: cannot read the clock; this request is not journaled');
      return;
    }
    reply.raw.once('close', () => {
      try {
        record({ tenantId, row: journalRow(request, reply, kind, arrival.atMs, arrival.wallMs) });
      } catch (err) {
        request.log.error({ err }, 'request journal: could not record this request');
      }
    });
  };
  const recorder = (kind: JournalKind): onRequestHookHandler => (request, reply, done) => {
    note(kind, request, reply);
    done();
  };
  const flushFirst: preHandlerHookHandler = (_request, _reply, done) => {
    flush();
    done();
  };
  // Each context records its requests as its kind; each /_mock handler runs after a flush, so
  // nothing can commit between it and what the handler reads or deletes.
  app.decorate('journalHooks', { recordApi: recorder('api'), recordControl: recorder('control'), flushFirst });
});
