import t from '../../helpers/tap.js';
import { launchRun, legCounting } from '../../helpers/rl.js';
import { startInProcess, type TestServer } from '../../helpers/server.js';

/** The three ways a client sends "nothing": no body nor Content-Type, JSON's type with no text, and `{}`. */
const EMPTY = [
  { what: 'no body', headers: {}, payload: undefined },
  { what: 'an empty JSON body', headers: { 'content-type': 'application/json' }, payload: '' },
  { what: '{}', headers: { 'content-type': 'application/json' }, payload: '{}' },
] as const;

function send(s: TestServer, method: 'POST' | 'PUT', url: string, empty: (typeof EMPTY)[number]) {
  return s.app.inject({ method, url, headers: { authorization: `Bearer ${s.key}`, ...empty.headers }, payload: empty.payload });
}

t.test('control routes whose body fields are all optional take an empty body as {}', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  for (const empty of EMPTY) {
    const { id } = await launchRun(s, legCounting({ mode: 'train', training_steps: 20 }));
    await s.call('POST', '/_mock/clock/advance', { body: { seconds: 90 } });

    const recovered = await send(s, 'POST', `/_mock/workloads/${id}/recover`, empty);
    t.equal(recovered.statusCode, 200, `recover with ${empty.what}`);
    t.match(recovered.json(), { workload_id: id, status: 'recovering' });

    const plan = await send(s, 'PUT', `/_mock/workloads/${id}/grading-plan`, empty);
    t.equal(plan.statusCode, 200, `grading-plan with ${empty.what}`);
    t.match(plan.json(), { workload_id: id, revision: 1 });

    const failed = await send(s, 'POST', `/_mock/workloads/${id}/fail`, empty);
    t.equal(failed.statusCode, 200, `fail with ${empty.what}`);
    t.match(failed.json(), { workload_id: id, status: 'failed' });

    const levers = await send(s, 'PUT', '/_mock/levers', empty);
    t.equal(levers.statusCode, 200, `levers with ${empty.what}`);
    t.match(levers.json(), { review_expiry: false });

    const asset = await send(s, 'POST', '/_mock/assets/as_unknown/fail', empty);
    t.equal(asset.statusCode, 404, `asset fail with ${empty.what} reaches the route, which knows no such asset`);
    t.equal(asset.json().error, 'not_found');
  }
});

t.test('a route that needs a field still refuses an empty body, naming the field', async (t) => {
  const s = await startInProcess(t, { clock: 'manual' });
  const { id } = await launchRun(s, legCounting());
  for (const empty of EMPTY) {
    const res = await send(s, 'POST', `/_mock/workloads/${id}/drop-events`, empty);
    t.equal(res.statusCode, 400, `drop-events with ${empty.what}`);
    t.match(res.json(), { error: 'invalid_request', message: /body/ });
  }
});

t.test('the OpenAPI document marks exactly those control bodies optional', async (t) => {
  const s = await startInProcess(t);
  const document = (await s.call('GET', '/openapi.json')).body;
  const optional: string[] = [];
  for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (path.startsWith('/_mock/') && operation.requestBody?.required === false) optional.push(`${method.toUpperCase()} ${path}`);
    }
  }
  t.same(optional.sort(), [
    'POST /_mock/assets/{id}/fail',
    'POST /_mock/requests/match',
    'POST /_mock/workloads/{id}/fail',
    'POST /_mock/workloads/{id}/recover',
    'PUT /_mock/levers',
    'PUT /_mock/workloads/{id}/grading-plan',
  ]);
});
