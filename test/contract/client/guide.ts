/**
 * The guide's flow, written as a Node user would with a client generated from the served
 * document: `openapi-typescript` writes its types beside this file, as the module imported below (the test
 * does, with `defaultNonNullable: false`: a body property with a default is one a client may
 * leave out), `openapi-fetch` sends. The test compiles the two alone with `tsc --strict`, so
 * anything the document fails to declare (a required header, a query, a body) is a type error,
 * then runs the flow against a server and judges what it returns.
 */
import { createHash } from 'node:crypto';
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './nodus-api.js';

const sha256 = (bytes: string | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The answer's body, or an error naming the call and what came back instead. */
function ok<T>(what: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

export interface GuideRun {
  recipe: string;
  launch: { status: number; id: string; replayed: string | null };
  replay: { status: number; id: string; replayed: string | null };
  conflict: { status: number; error: string | undefined };
  status: string | undefined;
  evidence: { pages: number; events: number; lastHasMore: boolean };
  summary: { workloadId: string; evaluationAttempts: number };
  upload: { status: number; sha256: string; sent: string; retryReplayed: string | null; stored: string; storedHeader: string | null };
  download: { name: string; bytes: number; header: string | null; computed: string; listed: string };
}

export async function runGuide(baseUrl: string, apiKey: string, watch?: Middleware): Promise<GuideRun> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });
  if (watch) client.use(watch);

  const { recipes } = ok('recipes', await client.GET('/v1/rl-recipes'));
  const recipe = recipes.find((r) => r.id === 'reasoning-gym-leg-counting');
  if (!recipe) throw new Error(`no leg-counting recipe among ${recipes.map((r) => r.id).join(', ')}`);

  const request = { recipe_id: recipe.id, recipe_version: recipe.version, mode: 'evaluate' } as const;
  const preview = ok('preview', await client.POST('/v1/rl-runs/preview', { body: request }));
  const launchBody = { ...preview.configuration, review_token: preview.review_token };
  const key = { header: { 'Idempotency-Key': 'guide-run-1' } };

  const first = await client.POST('/v1/rl-runs', { params: key, body: launchBody });
  const launched = ok('launch', first);
  // The answer to the first launch was lost, say: the retry under the same key replays it.
  const again = await client.POST('/v1/rl-runs', { params: key, body: launchBody });
  const replayed = ok('replay', again);

  const other = ok('second preview', await client.POST('/v1/rl-runs/preview', { body: { ...request, seed: 9 } }));
  const conflict = await client.POST('/v1/rl-runs', { params: key, body: { ...other.configuration, review_token: other.review_token } });

  const estimate = preview.estimate.completion_seconds;
  if (!estimate) throw new Error('the preview has no completion estimate');
  const seconds = Math.ceil(estimate.high * 1.2) + 300;
  ok('advance', await client.POST('/_mock/clock/advance', { body: { seconds } }));
  const path = { id: launched.id };
  const workload = ok('workload', await client.GET('/v1/workloads/{id}', { params: { path } }));

  let pages = 0;
  let events = 0;
  let after: string | undefined;
  let lastHasMore = true;
  while (lastHasMore) {
    const page = ok('rl-events', await client.GET('/v1/workloads/{id}/rl-events', { params: { path, query: { limit: 20, after } } }));
    pages += 1;
    events += page.events.length;
    after = page.next_cursor;
    lastHasMore = page.has_more;
  }
  const summary = ok('summary', await client.GET('/v1/workloads/{id}/rl-summary', { params: { path } }));

  const code = 'print("trained by a generated client")\n';
  const upload = () => client.POST('/v1/assets/upload', {
    params: { query: { name: 'train.py' }, header: { 'Idempotency-Key': 'guide-upload-1', 'X-Nodus-SHA256': sha256(code) } },
    body: code,
    bodySerializer: (body) => body,
    headers: { 'Content-Type': 'application/octet-stream' },
  });
  const uploaded = await upload();
  const asset = ok('upload', uploaded);
  const retried = await upload();
  ok('upload retry', retried);
  // The contract's Asset requires no field, so the client checks the id it needs.
  if (!asset.id) throw new Error(`the upload answered no asset id: ${JSON.stringify(asset)}`);
  const stored = await client.GET('/_mock/assets/{id}/content', { params: { path: { id: asset.id } }, parseAs: 'text' });

  const { outputs } = ok('outputs', await client.GET('/v1/workloads/{id}/outputs', { params: { path } }));
  const output = outputs[0];
  if (!output) throw new Error('the finished run lists no output');
  const file = await client.GET('/v1/workloads/{id}/outputs/{name}', {
    params: { path: { ...path, name: output.name }, query: { stage: output.stage_id } },
    parseAs: 'arrayBuffer',
  });
  const bytes = new Uint8Array(ok('download', file));

  return {
    recipe: `${recipe.id}@${recipe.version}`,
    launch: { status: first.response.status, id: launched.id, replayed: first.response.headers.get('Idempotent-Replayed') },
    replay: { status: again.response.status, id: replayed.id, replayed: again.response.headers.get('Idempotent-Replayed') },
    conflict: { status: conflict.response.status, error: conflict.error?.error },
    status: workload.status,
    evidence: { pages, events, lastHasMore },
    summary: { workloadId: summary.workload_id, evaluationAttempts: summary.phases.evaluation.attempts },
    upload: {
      status: uploaded.response.status,
      sha256: asset.sha256 ?? '',
      sent: sha256(code),
      retryReplayed: retried.response.headers.get('Idempotent-Replayed'),
      stored: ok('stored bytes', stored),
      storedHeader: stored.response.headers.get('X-Nodus-SHA256'),
    },
    download: { name: output.name, bytes: bytes.length, header: file.response.headers.get('X-Nodus-SHA256'), computed: sha256(bytes), listed: output.sha256 },
  };
}
