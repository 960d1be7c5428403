import { newWorkloadId } from '../../server/domain/ids.js';
import type { WorkloadRow } from '../../store/workloads.js';
import type { TestServer } from './server.js';

/** A preview request as the SDK's docs build it. */
export const legCounting = (overrides: Record<string, unknown> = {}) => ({
  recipe_id: 'reasoning-gym-leg-counting',
  recipe_version: '1.0.0',
  mode: 'evaluate',
  ...overrides,
});

/** preview → launch, the way `client.rl.launch(configuration=, review_token=, idempotency_key=)` sends it. */
export async function previewAndLaunch(s: TestServer, configuration: Record<string, unknown>, key: string, callKey?: string) {
  const preview = await s.call('POST', '/v1/rl-runs/preview', { body: configuration, key: callKey });
  if (preview.status !== 200) throw new Error(`preview failed: ${preview.status} ${preview.text}`);
  const launch = await s.call('POST', '/v1/rl-runs', {
    body: { ...preview.body.configuration, review_token: preview.body.review_token },
    headers: { 'idempotency-key': key },
    key: callKey,
  });
  return { preview, launch };
}

/** Workloads in this server's own database, whatever the tenant. */
export function workloadCount(s: TestServer): number {
  return (s.store.db.prepare('SELECT count(*) AS n FROM workloads').get() as { n: number }).n;
}

/** Launches a recipe run and returns its workload id and the preview it was launched from. */
export async function launchRun(s: TestServer, configuration: Record<string, unknown>, key = `run-${Math.random().toString(36).slice(2)}`, callKey?: string) {
  const { preview, launch } = await previewAndLaunch(s, configuration, key, callKey);
  if (launch.status !== 202) throw new Error(`launch failed: ${launch.status} ${launch.text}`);
  return { id: launch.body.id as string, preview: preview.body };
}

export async function advance(s: TestServer, seconds: number, callKey?: string): Promise<void> {
  const res = await s.call('POST', '/_mock/clock/advance', { body: { seconds }, key: callKey });
  if (res.status !== 200) throw new Error(`advance failed: ${res.status} ${res.text}`);
}

/**
 * Stores a workload's row again `copies` times under new ids (the spec naming its own), in one
 * transaction; answers the new ids in the order stored. Each copy makes real rows of its own when
 * a read materialises it.
 */
export function copyWorkload(s: TestServer, row: WorkloadRow, copies: number): string[] {
  return s.store.write(() => Array.from({ length: copies }, () => {
    const copy = newWorkloadId();
    s.store.workloads.insert({ ...row, id: copy, spec: row.spec.replaceAll(row.id, copy) });
    return copy;
  }));
}

/**
 * `n` workloads in the key's tenant, due to run to their end and not yet brought up to now: one
 * launched through the API, the others its row as launched stored again (copyWorkload) after the
 * clock moved. Answers the tenant, the launched run and the copies.
 */
export async function manyWorkloads(s: TestServer, n: number, callKey?: string) {
  const { id, preview } = await launchRun(s, legCounting({ evaluation_tasks: 4, seed: 4 }), undefined, callKey);
  const tenantId = (await s.call('GET', '/v1/me', { key: callKey })).body.tenant as string;
  const launched = s.store.workloads.get(tenantId, id)!;
  await advance(s, secondsToFinish(preview), callKey);
  return { tenantId, id, copies: copyWorkload(s, launched, n - 1) };
}

/** Enough virtual time for any run of this preview to finish, grading included. */
export const secondsToFinish = (preview: any) => Math.ceil(preview.estimate.completion_seconds.high * 1.2) + 300;

/** Every RL event row of a workload, drained page by page. */
export async function drainEvents(s: TestServer, id: string, callKey?: string, limit = 200) {
  const rows: any[] = [];
  let after: string | undefined;
  for (;;) {
    const q = after === undefined ? `?limit=${limit}` : `?limit=${limit}&after=${encodeURIComponent(after)}`;
    const page = await s.call('GET', `/v1/workloads/${id}/rl-events${q}`, { key: callKey });
    if (page.status !== 200) throw new Error(`rl-events failed: ${page.status} ${page.text}`);
    rows.push(...page.body.events);
    after = page.body.next_cursor;
    if (!page.body.has_more) return { rows, last: page.body };
  }
}

/** Every lifecycle event of a workload, paged as the SDK's iter_events does. */
export async function lifecycleEvents(s: TestServer, id: string, callKey?: string) {
  const events: any[] = [];
  let after = 0;
  for (;;) {
    const page = await s.call('GET', `/v1/workloads/${id}/events?after=${after}`, { key: callKey });
    if (page.status !== 200) throw new Error(`events failed: ${page.status} ${page.text}`);
    if (page.body.events.length === 0) return events;
    events.push(...page.body.events);
    after = Math.max(...page.body.events.map((e: any) => e.id));
  }
}
