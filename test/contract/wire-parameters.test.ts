import { readFileSync } from 'node:fs';
import t from '../helpers/tap.js';
import { CONTRACT_PATH } from '../helpers/contract.js';
import { compareOperation, operationsOf } from '../helpers/operation-shape.js';
import { startServer, type Teardown } from '../helpers/server.js';

/**
 * The served document declares, for every operation of the contract the mock serves, the
 * contract's parameters (path, query, header; with `required` and schema) and response headers,
 * and no others, under the contract's spelling: what a client generated from either document
 * sends and reads is the same.
 */

type Json = Record<string, any>;

const contract = JSON.parse(readFileSync(CONTRACT_PATH, 'utf8')) as Json;

/** Response headers the mock sends beyond the contract's, each for the client that reads it. */
const ADDITIONS: Record<string, string[]> = {
  // The SDK's wait() reads both to name the attempt a log or an output came from.
  'GET /v1/workloads/{id}/logs': ['200 header X-Nodus-Stage-Id', '200 header X-Nodus-Generation'],
  'GET /v1/workloads/{id}/outputs/{name}': ['200 header X-Nodus-Stage-Id'],
  // A keyed upload's retry is marked the way a launch's is.
  'POST /v1/assets/upload': ['201 header Idempotent-Replayed'],
  // The review token as an entity tag, for a client that caches previews.
  'POST /v1/rl-runs/preview': ['200 header ETag'],
};

const additionsOf = (operation: string) => new Set(ADDITIONS[operation] ?? []);

async function served(t: Teardown): Promise<Json> {
  const s = await startServer(t);
  return (await s.call('GET', '/openapi.json', { key: null })).body;
}

t.test('every contract operation the mock serves declares the contract\'s parameters and response headers, and only those', async (t) => {
  const doc = await served(t);
  const shared = operationsOf(doc).filter((operation) => operationsOf(contract).includes(operation));
  t.equal(shared.length, operationsOf(contract).length, 'the mock serves every operation of the contract');
  for (const operation of shared) t.same(compareOperation(operation, contract, doc, additionsOf(operation)), [], operation);
  for (const operation of Object.keys(ADDITIONS)) t.ok(shared.includes(operation), `${operation}: an addition to an operation of the contract`);
});

t.test('the comparison names the operation and what differs', async (t) => {
  const doc = await served(t);
  const check = (operation: string, change: (ours: Json, contract: Json) => void) => {
    const ours = structuredClone(doc);
    const theirs = structuredClone(contract);
    change(ours, theirs);
    return compareOperation(operation, theirs, ours, additionsOf(operation));
  };
  const param = (d: Json, path: string, method: string, name: string) => d.paths[path][method].parameters.find((p: Json) => p.name === name);

  t.same(check('POST /v1/rl-runs', (ours) => { param(ours, '/v1/rl-runs', 'post', 'Idempotency-Key').name = 'idempotency-key'; }), [
    'POST /v1/rl-runs: header Idempotency-Key: missing',
    'POST /v1/rl-runs: header idempotency-key: not in the contract',
  ], 'a lower-cased header name is not the contract\'s');
  t.same(check('GET /v1/workloads/{id}/rl-grading-results', (ours) => {
    param(ours, '/v1/workloads/{id}/rl-grading-results', 'get', 'revision').required = false;
  }), ['GET /v1/workloads/{id}/rl-grading-results: query revision: required false, contract true']);
  t.same(check('GET /v1/workloads/{id}/rl-events', (ours) => {
    param(ours, '/v1/workloads/{id}/rl-events', 'get', 'limit').schema.maximum = 500;
  }), ['GET /v1/workloads/{id}/rl-events: query limit: maximum [500], contract [200]']);
  t.same(check('GET /v1/workloads', (ours) => {
    ours.paths['/v1/workloads'].get.parameters.push({ in: 'query', name: 'sort', required: false, schema: { type: 'string' } });
  }), ['GET /v1/workloads: query sort: not in the contract']);
  t.same(check('GET /v1/assets/{id}', (_, theirs) => {
    theirs.paths['/v1/assets/{id}'].parameters[0].schema = { type: 'integer' };
  }), ['GET /v1/assets/{id}: path id: type [string], contract [integer]'], 'a path-level parameter counts for each operation');
  t.same(check('POST /v1/workloads', (ours) => { delete ours.paths['/v1/workloads'].post.responses['202'].headers; }), [
    'POST /v1/workloads: 202 header Idempotent-Replayed: missing',
  ]);
  t.same(check('GET /v1/workloads/{id}/logs', (_, theirs) => {
    theirs.paths['/v1/workloads/{id}/logs'].get.responses['200'].headers['X-Nodus-Log-Source'].schema.enum.push('archive');
  }), ['GET /v1/workloads/{id}/logs: 200 header X-Nodus-Log-Source: values ["live-snapshot"], contract ["archive", "live-snapshot"]']);
  t.same(check('GET /v1/workloads/{id}/outputs/{name}', (ours) => {
    const headers = ours.paths['/v1/workloads/{id}/outputs/{name}'].get.responses['200'].headers;
    delete headers['X-Nodus-Stage-Id'];
    headers['X-Nodus-Size'] = { schema: { type: 'string' } };
  }), [
    'GET /v1/workloads/{id}/outputs/{name}: 200 header X-Nodus-Size: not in the contract',
    'GET /v1/workloads/{id}/outputs/{name}: 200 header X-Nodus-Stage-Id: listed as an addition, not in the document',
  ]);
});
