import { randomBytes } from 'node:crypto';
import { call, type CallOptions } from '../test/helpers/server.js';
import { secondsToFinish } from '../test/helpers/rl.js';

/** A fresh tenant: open mode makes any new `nk_test_` key its own tenant. */
export const benchKey = () => `nk_test_bench_${randomBytes(6).toString('hex')}`;

/** The SDK's flow through the real API; any answer but the expected one stops the bench. */
async function expect(url: string, key: string, method: string, path: string, status: number, options: CallOptions = {}) {
  const res = await call(url, method, path, key, options);
  if (res.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${res.text.slice(0, 300)}`);
  return res;
}

interface Reviewed {
  /** The launch body: the preview's normalised configuration plus its review token. */
  body: string;
  /** Virtual seconds after which the run has certainly finished. */
  secondsToFinish: number;
}

export async function review(url: string, key: string, configuration: Record<string, unknown>): Promise<Reviewed> {
  const preview = await expect(url, key, 'POST', '/v1/rl-runs/preview', 200, { body: configuration });
  return {
    body: JSON.stringify({ ...preview.body.configuration, review_token: preview.body.review_token }),
    secondsToFinish: secondsToFinish(preview.body),
  };
}

/** Launches a reviewed run; answers its workload id. */
export async function launch(url: string, key: string, reviewed: Reviewed, idempotencyKey: string): Promise<string> {
  const res = await expect(url, key, 'POST', '/v1/rl-runs', 202, {
    raw: reviewed.body,
    headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
  });
  return res.body.id as string;
}

/** One clock move of a manual-clock tenant: materialises everything due, in one transaction. */
export async function advance(url: string, key: string, seconds: number): Promise<void> {
  await expect(url, key, 'POST', '/_mock/clock/advance', 200, { body: { seconds } });
}

export async function get(url: string, key: string, path: string): Promise<string> {
  return (await expect(url, key, 'GET', path, 200)).text;
}

/** Polls /readyz until it answers 200. */
export async function untilReady(url: string): Promise<void> {
  for (;;) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    if (res?.status === 200) {
      await res.arrayBuffer();
      return;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
}
