// Durable launch baseline: the least a launch that is stored before it is answered can cost here.
// A bare Fastify POST /v1/rl-runs that commits the rows one real launch committed (from --rows,
// LaunchRows read from the mock's file: workload, idempotency record, grading plan, and the
// request's journal row) under fresh ids, into --db opened by the mock's own openDatabase (schema
// and pragmas) and through the store's own group commit and journal ring. None of the mock's
// checks run: no idempotency lookup, no fingerprint, no validation, no admission.
// With --journal-only it writes nothing but each request's journal row and answers the stored
// launch: the least a replay can cost here while every request is journaled.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { openStore } from '../../store/index.js';
import type { JournalRecord } from '../../store/journal.js';
import { insertInto, type LaunchRows, type Row } from '../materialised-rows.js';

const { values } = parseArgs({ options: { rows: { type: 'string' }, db: { type: 'string' }, 'journal-only': { type: 'boolean' } } });
const journalOnly = values['journal-only'] === true;
const rows = JSON.parse(readFileSync(values.rows!, 'utf8')) as LaunchRows;
const store = openStore(values.db!);
const { db } = store;
insertInto(db, 'tenants', rows.tenant).run(rows.tenant);
const tenantId = rows.tenant.id as string;
const insertWorkload = insertInto(db, 'workloads', rows.workload);
const insertIdempotency = insertInto(db, 'idempotency_keys', rows.idempotency);
const insertPlans = rows.gradingPlans.map((plan) => ({ plan, statement: insertInto(db, 'grading_plans', plan) }));

const storedId = rows.workload.id as string;
const j = rows.journal;
/** The mock's journal ring size (its default, --journal-size 1000). */
const JOURNAL_SIZE = 1000;

let journalPending: JournalRecord[] = [];
/** The journal rows wait 10 ms and commit on their own, as the mock's do. */
const journal = (record: JournalRecord) => {
  if (journalPending.push(record) > 1) return;
  setTimeout(() => {
    const rows = journalPending;
    journalPending = [];
    store.write(() => store.journal.append(rows, JOURNAL_SIZE));
  }, 10);
};

// The mock's answer to a launch: the admitted workload. A replay answers the stored one, the same each time.
const answer = (id: string) => JSON.stringify({ id, workload_id: id, status: 'accepted', revision: 1 });
const storedAnswer = answer(storedId);

let launched = 0;
const app = Fastify({ logger: false });
app.post('/v1/rl-runs', async (request, reply) => {
  const body = request.body as { recipe_id?: unknown };
  if (typeof body?.recipe_id !== 'string') return reply.code(400).send({ error: 'invalid_request' });
  const key = String(request.headers['idempotency-key']);
  const n = ++launched;
  let text = storedAnswer;
  if (!journalOnly) {
    // Same length as the mock's ids, so the rows and the answer keep their size.
    const id = `wl_${n.toString(36).padStart(storedId.length - 3, '0')}`;
    text = answer(id);
    const fresh = (row: Row) => ({ ...row, workload_id: id });
    await store.writeTogether(() => {
      insertWorkload.run({ ...rows.workload, id });
      insertIdempotency.run({ ...fresh(rows.idempotency), key });
      for (const { plan, statement } of insertPlans) statement.run(fresh(plan));
    });
  }
  // As the mock journals a request: once it is answered, committed with the others waiting.
  journal({
    tenantId,
    row: {
      kind: 'api', atMs: j.at_ms as number, wallMs: Date.now(), method: 'POST', path: '/v1/rl-runs', query: '', headers: JSON.parse(j.headers as string),
      headersTruncated: j.headers_truncated === 1, status: 202,
      requestId: `req_${n.toString(16).padStart(32, '0')}`, idempotencyKey: key, replayed: journalOnly, fault: null, faultId: null,
      body: j.body as string, bodyJson: true, bodyBytes: j.body_bytes as number, bodyTruncated: j.body_truncated === 1, durationMs: j.duration_ms as number,
    },
  });
  return reply.code(202).type('application/json; charset=utf-8').send(text);
});

await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on http://127.0.0.1:${(app.server.address() as AddressInfo).port}\n`);
process.on('SIGTERM', () => void app.close().then(() => {
  store.close();
  process.exit(0);
}));
