import t from '../helpers/tap.js';
import { operations } from '../helpers/fuzz.js';
import { advance, launchRun, legCounting, secondsToFinish } from '../helpers/rl.js';
import { freshKey, startInProcess } from '../helpers/server.js';

/** What a route needs besides the id to get past validation, so only ownership decides. */
const BODIES: Record<string, unknown> = {
  'POST /_mock/workloads/{id}/drop-events': { count: 1 },
  'POST /_mock/workloads/{id}/rl-events': { events: [] },
};
const QUERIES: Record<string, string> = {
  'GET /v1/workloads/{id}/rl-grading-results': '?revision=1',
};
const OTHER_PARAMS: Record<string, string> = { name: 'results.json' };

t.test('every route that takes a tenant-owned id answers 404 to another tenant', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const owner = freshKey();
  const { id, preview } = await launchRun(s, legCounting({ mode: 'train', evaluation_tasks: 4, training_steps: 2 }), 'iso', owner);
  await advance(s, secondsToFinish(preview) / 2, owner);
  const fault = await s.call('POST', '/_mock/faults', { key: owner, body: { path: '/v1/never', action: { type: 'reset' } } });
  const ids: Record<string, string> = { '/v1/workloads/': id, '/_mock/workloads/': id, '/_mock/faults/': fault.body.id };

  const owned = (await operations(s)).filter((op) => Object.keys(ids).some((prefix) => op.template.startsWith(prefix) && op.template.includes('{id}')));
  t.same(owned.map((op) => `${op.method} ${op.template}`).sort(), [
    'DELETE /_mock/faults/{id}', 'GET /v1/workloads/{id}', 'GET /v1/workloads/{id}/artifacts', 'GET /v1/workloads/{id}/events',
    'GET /v1/workloads/{id}/freeze', 'GET /v1/workloads/{id}/ledger', 'GET /v1/workloads/{id}/logs', 'GET /v1/workloads/{id}/logs/live',
    'GET /v1/workloads/{id}/outputs', 'GET /v1/workloads/{id}/outputs/{name}', 'GET /v1/workloads/{id}/rl-events',
    'GET /v1/workloads/{id}/rl-grading-results', 'GET /v1/workloads/{id}/rl-summary', 'GET /v1/workloads/{id}/routing',
    'POST /_mock/workloads/{id}/drop-events', 'POST /_mock/workloads/{id}/fail', 'POST /_mock/workloads/{id}/recover',
    'POST /_mock/workloads/{id}/rl-events', 'POST /v1/workloads/{id}/cancel', 'POST /v1/workloads/{id}/freeze',
    'POST /v1/workloads/{id}/resume', 'PUT /_mock/workloads/{id}/grading-plan',
  ].sort(), 'the id-bearing operations of the served document, each checked below');
  const stranger = freshKey();
  for (const op of owned) {
    const prefix = Object.keys(ids).find((p) => op.template.startsWith(p))!;
    const path = op.template.replace('{id}', ids[prefix]).replace(/\{(\w+)\}/g, (_, name: string) => OTHER_PARAMS[name] ?? 'x');
    const name = `${op.method} ${op.template}`;
    const hasBody = !['GET', 'DELETE'].includes(op.method);
    const res = await s.call(op.method, path + (QUERIES[name] ?? ''), { key: stranger, body: hasBody ? BODIES[name] ?? {} : undefined });
    t.equal(res.status, 404, `${name} as another tenant`);
    t.equal(res.body.error, 'not_found', name);
  }
  const still = await s.call('GET', `/v1/workloads/${id}`, { key: owner });
  t.equal(still.status, 200, 'nothing the stranger sent touched the owner\'s workload');
  t.not(still.body.status, 'cancelled');
  t.equal((await s.call('GET', '/_mock/faults', { key: owner })).body.faults.length, 1);
});
