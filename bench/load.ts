import autocannon from 'autocannon';

export type LoadRequest = Omit<autocannon.Request, 'path'> & { path: string };

export interface LoadResult {
  rps: number;
  meanMs: number;
  p99Ms: number;
  requests: number;
}

/**
 * One autocannon run against `baseUrl`. Every answer must be a 2xx: a benchmark that counts
 * refusals as throughput measures nothing, so any other answer fails the run.
 */
export async function load(baseUrl: string, request: LoadRequest, options: { seconds?: number; amount?: number; connections: number }): Promise<LoadResult> {
  const { setupRequest, ...first } = request;
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.seconds }),
    ...first,
    requests: [{ ...first, ...(setupRequest ? { setupRequest } : {}) }],
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0 || result.requests.total === 0) {
    const probe = await fetch(baseUrl + request.path, { method: request.method ?? 'GET', headers: request.headers, body: request.body }).catch((e) => e as Error);
    const sample = probe instanceof Error ? probe.message : `${probe.status} ${(await probe.text()).slice(0, 300)}`;
    throw new Error(`${request.method ?? 'GET'} ${request.path}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts of ${result.requests.total}; one more answers ${sample}`);
  }
  return {
    rps: result.requests.total / result.duration,
    meanMs: result.latency.mean,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
  };
}
