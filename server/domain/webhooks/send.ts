// One delivery attempt over the wire: the signed POST, bounded by --webhook-timeout-ms, and what
// the tenant's fault rules make of it. The delivery worker (delivery.ts) decides which attempt
// goes when and records what this answers.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeliveryRow, WebhookRow } from '../../../store/webhooks.js';
import type { DomainContext } from '../context.js';
import type { FaultActionInput } from '../control/faults.js';
import { takeFault } from '../control/requests.js';
import { signedHeaders } from './signing.js';

/**
 * A delivery is matched by fault rules as `POST /webhook/{workload id}/{type}`: a pseudo-path no
 * route serves, so a rule for `/webhook/*` acts on every delivery of the tenant and one for
 * `/webhook/{id}/workload.completed` on the completions only.
 */
const webhookFaultPath = (workloadId: string, type: string) => `/webhook/${workloadId}/${type}`;

export interface Outcome {
  statusCode: number | null;
  /** Null when delivered. */
  error: string | null;
  faultId: string | null;
}

export const delivered = (o: Outcome) => o.error === null;

function connectionError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

/** What one attempt reads: the tenant's fault rules (takeFault), its clock and the timeout. */
export type SendDeps = Pick<DomainContext, 'clock' | 'config'> & Parameters<typeof takeFault>[0];

/** One attempt over the wire, with what a fault rule makes of it; undefined when `stopped` (the server shutting down) cut it short. */
export async function send(deps: SendDeps, d: DeliveryRow, hook: WebhookRow, stopped: AbortSignal): Promise<Outcome | undefined> {
  const { clock, config } = deps;
  const rule = takeFault(deps, d.tenantId, 'POST', webhookFaultPath(d.workloadId, d.type));
  const action = rule && (JSON.parse(rule.action) as FaultActionInput);
  const faultId = rule?.id ?? null;
  if (action?.type === 'error') return { statusCode: action.status, error: `fault ${faultId}: answered ${action.status} ${action.error} without sending`, faultId };
  if (action?.type === 'reset') return { statusCode: null, error: `fault ${faultId}: the connection was reset before sending`, faultId };
  const timeoutMs = config.webhookTimeoutMs;
  // A delay stalls the attempt inside its timeout, as a receiver that does not answer would.
  // A timer of our own, held until the attempt ends: an AbortSignal.timeout() inside
  // AbortSignal.any() can be collected before it fires, leaving the attempt without a timeout.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = AbortSignal.any([stopped, timeout.signal]);
  try {
    if (action?.type === 'delay') await sleep(action.ms, undefined, { signal });
    const timestamp = Math.floor(clock.wallNow() / 1000);
    const res = await fetch(hook.url, {
      method: 'POST',
      // No Authorization: a receiver trusts the signature, and the team's key never leaves.
      headers: { 'content-type': 'application/json', 'user-agent': 'nodus-mock-webhooks', ...signedHeaders(hook.secret, d.id, timestamp, d.body) },
      body: d.body,
      redirect: 'manual',
      signal,
    });
    // Only the status counts; the body is not read, so a receiver cannot make the mock buffer it.
    await res.body?.cancel();
    if (action?.type === 'drop_response') return { statusCode: null, error: `fault ${faultId}: the receiver's answer (${res.status}) was dropped`, faultId };
    const ok = res.status >= 200 && res.status < 300;
    return { statusCode: res.status, error: ok ? null : `the receiver answered ${res.status}`, faultId };
  } catch (err) {
    if (stopped.aborted) return undefined;
    // The timeout's abort: fetch rejects with its TimeoutError, a stalled delay with an AbortError.
    if (signal.aborted) return { statusCode: null, error: `no answer within ${timeoutMs} ms (--webhook-timeout-ms)`, faultId };
    return { statusCode: null, error: `could not connect: ${connectionError(err)}`, faultId };
  } finally {
    clearTimeout(timer);
  }
}
