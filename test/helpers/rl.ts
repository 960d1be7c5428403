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
  return (s.app.store.db.prepare('SELECT count(*) AS n FROM workloads').get() as { n: number }).n;
}
