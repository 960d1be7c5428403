import type { z } from 'zod';
import type { WebhookAttempt, WebhookDelivery } from '../../../openapi/mock-webhooks.js';
import type { AttemptRow } from '../../../store/webhooks.js';
import { isoTime } from '../../domain/clock.js';
import type { DeliveryRecord } from '../../domain/webhooks/service.js';

const optionalTime = (ms: number | null) => (ms === null ? null : isoTime(ms));

function attemptView(a: AttemptRow): z.infer<typeof WebhookAttempt> {
  return {
    attempt: a.attempt,
    at: isoTime(a.atMs),
    wall_at: isoTime(a.wallMs),
    url: a.url,
    status_code: a.statusCode,
    error: a.error,
    latency_ms: a.latencyMs,
    next_retry_at: optionalTime(a.nextRetryAtMs),
    fault_id: a.faultId,
  };
}

export function deliveryView({ delivery: d, attempts }: DeliveryRecord): z.infer<typeof WebhookDelivery> {
  return {
    id: d.id,
    type: d.type,
    workload_id: d.workloadId,
    created_at: isoTime(d.createdAtMs),
    state: d.state,
    next_attempt_at: d.state === 'pending' ? optionalTime(d.dueAtMs) : null,
    last_error: d.lastError,
    payload: JSON.parse(d.body) as Record<string, unknown>,
    attempts: attempts.map(attemptView),
  };
}
