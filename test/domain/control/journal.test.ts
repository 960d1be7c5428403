import t from '../../helpers/tap.js';
import { JournalMatch, JournalQuery } from '../../../openapi/mock.js';
import type { NewJournalRow } from '../../../store/journal.js';
import { domainServices, journalRow, refusal } from '../../helpers/domain.js';

let n = 0;
const row = (fields: Partial<NewJournalRow>): NewJournalRow => journalRow({ atMs: ++n, ...fields });
const json = (value: unknown) => ({ body: JSON.stringify(value), bodyJson: true, bodyBytes: JSON.stringify(value).length });

function journal(t: Parameters<typeof domainServices>[0], rows: Partial<NewJournalRow>[], journalSize = 1000) {
  const d = domainServices(t, { journalSize });
  const tenant = d.tenant();
  const { control } = d.services;
  d.services.requests.appendJournal(rows.map((r) => ({ tenantId: tenant, row: row(r) })));
  return {
    control,
    requests: d.services.requests,
    tenant,
    list: (query: Record<string, unknown>) => control.requests(tenant, JournalQuery.parse(query)),
    match: (expected: Record<string, unknown>) => control.matchRequests(tenant, JournalMatch.parse(expected)),
  };
}

t.test('paths filter as fault rules match them: exact, {name} templates, a trailing * prefix; by kind too', async (t) => {
  const j = journal(t, [
    { path: '/v1/workloads/wl_1' },
    { path: '/v1/workloads/wl_1/rl-events' },
    { path: '/v1/workloads' },
    { path: '/_mock/clock/advance', method: 'POST', kind: 'control' },
    { path: '/v1/workloads/wl_2' },
  ]);
  const paths = (query: Record<string, unknown>) => j.list(query).rows.map((r) => r.path);
  t.same(paths({ path: '/v1/workloads/{id}' }), ['/v1/workloads/wl_2', '/v1/workloads/wl_1'], 'one segment per {name}');
  t.same(paths({ path: '/v1/workloads/{id}/rl-events' }), ['/v1/workloads/wl_1/rl-events']);
  t.same(paths({ path: '/v1/workloads*' }), ['/v1/workloads/wl_2', '/v1/workloads', '/v1/workloads/wl_1/rl-events', '/v1/workloads/wl_1']);
  t.same(paths({ path: '/v1/workloads' }), ['/v1/workloads'], 'exact');
  t.same(paths({ path: '/{root}/workloads' }), ['/v1/workloads'], 'a template may stand for the root');
  t.same(paths({ kind: 'control' }), ['/_mock/clock/advance']);
  t.same(paths({ kind: 'api', path: '/v1/workloads/{id}', limit: 1 }), ['/v1/workloads/wl_2'], 'the limit counts rows that pass');
  t.same(paths({ path: '/*', method: 'post' }), ['/_mock/clock/advance']);
});

t.test('a path that can match no journaled row is refused, not answered with nothing', async (t) => {
  const j = journal(t, []);
  for (const [query, why] of [
    [{ path: '/workloads/{id}' }, 'outside /v1 and /_mock'],
    [{ path: '/v2/*' }, 'another root'],
    [{ path: '/' }, 'the root itself, exactly'],
    [{ path: '/v1/*', kind: 'control' }, 'control rows lie under /_mock'],
    [{ path: '/_mock/clock', kind: 'api' }, 'api rows lie under /v1'],
  ] as const) {
    t.match(refusal(() => j.list(query)), { refusal: 'invalid', code: 'invalid_request' }, why);
    t.match(refusal(() => j.match(query)), { refusal: 'invalid', code: 'invalid_request' }, `${why}, in the matcher too`);
  }
  t.notOk(refusal(() => j.list({ path: '/v*' })), 'a prefix that reaches /v1 can match');
  t.notOk(refusal(() => j.list({ path: '/{x}/me', kind: 'control' })), 'so can a template');
  t.match(refusal(() => j.match({ headers: { Authorization: 'Bearer x' } })), { code: 'invalid_request' }, 'a header the journal never keeps');
  t.equal(JournalQuery.safeParse({ method: 'FETCH' }).success, false, 'a method Node does not know');
  t.equal(JournalQuery.safeParse({ path: '/v1/work*loads' }).success, false, 'a malformed pattern');
  t.equal(JournalQuery.safeParse({ kind: 'mock' }).success, false, 'an unknown kind');
  t.equal(JournalMatch.safeParse({ body: { recipe_id: 1 } }).success, false, 'a body field that is no JSON pointer');
});

t.test('the matcher: every field, matches oldest first, counted beyond the limit', async (t) => {
  const launch = { recipe_id: 'grpo-gsm8k', config: { steps: 3, tags: ['a', 'b'] }, 'a/b': { '~': 1 } };
  const j = journal(t, [
    { method: 'POST', path: '/v1/rl-runs', ...json(launch), headers: { 'idempotency-key': 'k1' }, status: 202 },
    { method: 'POST', path: '/v1/rl-runs', ...json(launch), headers: { 'idempotency-key': 'k1' }, status: 202, replayed: true },
    { path: '/v1/workloads', query: 'status=running&tag=a&tag=b', status: 200 },
    { path: '/v1/workloads/wl_9', status: null },
    { kind: 'control', method: 'POST', path: '/_mock/faults', ...json({ path: '/v1/me' }), status: 201 },
  ]);
  const ids = (expected: Record<string, unknown>) => {
    const result = j.match(expected);
    t.same(result.nearest, [], 'no nearest when there are matches');
    return result.matches.map((r) => r.id);
  };
  t.same(ids({ method: 'post', path: '/v1/rl-runs' }), [1, 2], 'oldest first, method in any case');
  t.same(ids({ path: '/v1/rl-runs', replayed: true }), [2]);
  t.same(ids({ body: { '/recipe_id': 'grpo-gsm8k', '/config': { tags: ['a', 'b'], steps: 3 } } }), [1, 2], 'values compared as JSON, key order aside');
  t.same(ids({ body: { '/config/tags/1': 'b', '/a~1b/~0': 1, '': launch } }), [1, 2], 'pointer steps: array index, ~1 and ~0, the whole body');
  t.same(ids({ headers: { 'Idempotency-Key': 'k1' } }), [1, 2], 'header names in any case');
  t.same(ids({ query: { status: 'running', tag: ['a', 'b'] } }), [3], 'a repeated name as an array');
  t.same(ids({ status: null }), [4], 'unanswered');
  t.same(ids({ kind: 'control', body: { '/path': '/v1/me' } }), [5]);
  t.match(j.match({ path: '/v1/*', limit: 2 }), { count: 4, matches: [{ id: 1 }, { id: 2 }] }, 'count counts every match, the limit caps the rows');
});

t.test('without a match, the nearest rows and each field that differs', async (t) => {
  const j = journal(t, [
    { method: 'POST', path: '/v1/rl-runs', ...json({ recipe_id: 'grpo-gsm8k', config: { steps: 3 } }), headers: { 'idempotency-key': 'k1' }, status: 202 },
    { method: 'POST', path: '/v1/rl-runs', ...json({ recipe_id: 'other' }), headers: { 'idempotency-key': 'k2' }, status: 202 },
    { method: 'GET', path: '/v1/rl-runs', status: 200 },
    { method: 'POST', path: '/v1/rl-runs', body: 'not json', bodyJson: false, status: 400 },
    { method: 'POST', path: '/v1/rl-runs/preview', ...json({ recipe_id: 'grpo-gsm8k', config: { steps: 4 } }), status: 200 },
  ]);
  const result = j.match({ method: 'POST', path: '/v1/rl-runs', headers: { 'idempotency-key': 'k1' }, body: { '/recipe_id': 'grpo-gsm8k', '/config/steps': 4 } });
  t.equal(result.count, 0);
  t.same(result.matches, []);
  t.same(result.nearest.map((x) => x.row.id), [1, 5, 4], 'fewest differences first, newest first among equals (4 before 2), three at most');
  t.same(result.nearest[0].differences, [{ field: 'body./config/steps', expected: 4, actual: 3 }]);
  t.same(result.nearest[1].differences, [
    { field: 'path', expected: '/v1/rl-runs', actual: '/v1/rl-runs/preview' },
    { field: 'headers.idempotency-key', expected: 'k1', actual: null, absent: true },
  ]);
  t.same(result.nearest[2].differences, [
    { field: 'headers.idempotency-key', expected: 'k1', actual: null, absent: true },
    { field: 'body./recipe_id', expected: 'grpo-gsm8k', actual: null, absent: true },
    { field: 'body./config/steps', expected: 4, actual: null, absent: true },
  ], 'a body that is not JSON has no field');
  const [closest] = j.match({ method: 'POST', path: '/v1/rl-runs', headers: { 'idempotency-key': 'k3' }, body: { '/recipe_id': 'other' } }).nearest;
  t.equal(closest.row.id, 2);
  t.same(closest.differences, [{ field: 'headers.idempotency-key', expected: 'k3', actual: 'k2' }]);
  t.same(j.match({ status: 201, kind: 'control', replayed: true, method: 'DELETE' }).nearest[0].differences, [
    { field: 'method', expected: 'DELETE', actual: 'POST' },
    { field: 'kind', expected: 'control', actual: 'api' },
    { field: 'status', expected: 201, actual: 200 },
    { field: 'replayed', expected: true, actual: false },
  ], 'the row fields, named as the contract names them');
  t.same(j.match({ query: { cursor: 'abc' }, path: '/v1/rl-runs' }).nearest[0].differences, [{ field: 'query.cursor', expected: 'abc', actual: null, absent: true }]);
});

t.test('the journal says how many rows it evicted since it was last emptied', async (t) => {
  const j = journal(t, [{}, {}, {}, {}, {}, {}, {}], 3);
  t.equal(j.list({}).evicted, 4);
  t.equal(j.match({}).evicted, 4, 'the matcher says so too');
  j.requests.appendJournal([{ tenantId: j.tenant, row: row({}) }]);
  t.equal(j.list({}).evicted, 5, 'counted as rows fall out');
  j.control.clearRequests(j.tenant);
  t.equal(j.list({}).evicted, 0, 'a clear starts the count again');
  j.requests.appendJournal([1, 2, 3, 4].map(() => ({ tenantId: j.tenant, row: row({}) })));
  t.equal(j.list({}).evicted, 1);
  j.control.reset(j.tenant);
  t.equal(j.list({}).evicted, 0, 'so does a reset');
});
