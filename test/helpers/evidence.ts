import { contractErrors } from './contract.js';
import { eventPageProblems, gradingResultsProblems } from './sdk-strict.js';
import type { CallResult, TestServer } from './server.js';

/** A custom RL run as the capital-N SDK submits one: environment `custom`, no `recipe`. */
export async function submitCustom(s: TestServer, mode: 'train' | 'evaluate' = 'train', extra: Record<string, unknown> = {}): Promise<string> {
  const res = await s.call('POST', '/v1/workloads', {
    body: {
      source: { image: 'python:3.11-slim', command: ['python', 'train.py'] },
      rl: { schema_version: 1, environment_id: 'custom', mode, model: 'my-model', planned_tasks: 16 },
      ...extra,
    },
    headers: { 'idempotency-key': `custom-${Math.random().toString(36).slice(2)}` },
  });
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${res.text}`);
  return res.body.id;
}

type Outcome = 'passed' | 'failed' | 'error';

/** The started and completed events of one attempt; ids are unique per (phase, task, attempt, kind). */
export function attempt(phase: string, taskId: string, n: number, outcome: Outcome, extra: Record<string, unknown> = {}) {
  const id = (kind: string) => `${phase}:${taskId}:${n}:${kind}`;
  return [
    { event_id: id('s'), phase, task_id: taskId, attempt: n, kind: 'task_started' },
    { event_id: id('c'), phase, task_id: taskId, attempt: n, kind: 'task_completed', outcome, ...(outcome !== 'error' && { reward: outcome === 'passed' ? 1 : 0 }), ...extra },
  ];
}

/** Attempt 1 of tasks t0..t(n-1) in a phase, the first `passed` of them passing, the rest failing. */
export const phaseEvents = (phase: string, n: number, passed: number) =>
  Array.from({ length: n }, (_, i) => attempt(phase, `t${i}`, 1, i < passed ? 'passed' : 'failed')).flat();

export async function ingest(s: TestServer, id: string, events: unknown[], extra: Record<string, unknown> = {}, key?: string): Promise<CallResult> {
  return s.call('POST', `/_mock/workloads/${id}/rl-events`, { body: { events, ...extra }, key });
}

export async function ingestText(s: TestServer, id: string, text: string, query = ''): Promise<CallResult> {
  return s.call('POST', `/_mock/workloads/${id}/rl-events${query}`, { raw: text, headers: { 'content-type': 'text/plain' } });
}

/** Everything wrong with an rl-events reply: the contract's schema, then the strict SDK's checks. */
export const pageProblems = (res: CallResult) => [
  ...contractErrors('GET', '/v1/workloads/{id}/rl-events', res.status, res.body),
  ...eventPageProblems(res.body),
];

export const gradingProblems = (res: CallResult) => [
  ...contractErrors('GET', '/v1/workloads/{id}/rl-grading-results', res.status, res.body),
  ...gradingResultsProblems(res.body),
];

export async function page(s: TestServer, id: string, query: string, key?: string): Promise<CallResult> {
  return s.call('GET', `/v1/workloads/${id}/rl-events${query}`, { key });
}

/**
 * Drains the event pages with the given page sizes (cycled), checking each page against the
 * contract and the strict SDK; throws on the first problem (usable inside fast-check properties).
 */
export async function drainChecked(s: TestServer, id: string, sizes: readonly number[] = [200]) {
  const rows: any[] = [];
  let cursor: string | undefined;
  for (let i = 0; ; i++) {
    const q = `?limit=${sizes[i % sizes.length]}${cursor === undefined ? '' : `&after=${encodeURIComponent(cursor)}`}`;
    const res = await page(s, id, q);
    const problems = res.status === 200 ? pageProblems(res) : [`status ${res.status}: ${res.text}`];
    if (res.headers.get('cache-control') !== 'no-store') problems.push('Cache-Control is not no-store');
    if (problems.length) throw new Error(`page ${i} of ${id}: ${problems.join('; ')}`);
    rows.push(...res.body.events);
    cursor = res.body.next_cursor;
    if (!res.body.has_more) return { rows, last: res.body, cursor: cursor! };
  }
}

export async function summary(s: TestServer, id: string): Promise<CallResult> {
  return s.call('GET', `/v1/workloads/${id}/rl-summary`);
}
