import type { AttemptRow, DeliveryFilter, DeliveryRow } from '../../../store/webhooks.js';
import { DomainError, badRequest, conflict, notFound } from '../errors.js';
import { createDeliveryWorker, type DeliveryDeps, type WorkerLog } from './delivery.js';
import { refusedWebhookUrl } from './hosts.js';
import { newWebhookSecret } from './signing.js';

interface WebhookInput {
  url: string;
  secret?: string;
}

export interface DeliveryRecord {
  delivery: DeliveryRow;
  attempts: AttemptRow[];
}

/**
 * The team webhook (PUT, GET, DELETE /v1/webhooks) and its deliveries (/_mock/webhooks); it takes
 * what its delivery worker takes, which covers its own committed reads, units and config.
 */
export function createWebhookService(deps: DeliveryDeps) {
  const { committed, units, config } = deps;
  const worker = createDeliveryWorker(deps);
  /** Attempts as committed: read outside any unit (after redeliver's has committed). */
  const records = (deliveries: DeliveryRow[]): DeliveryRecord[] => {
    const attempts = committed.webhooks.attempts(deliveries.map((d) => d.seq));
    return deliveries.map((delivery) => ({ delivery, attempts: attempts.get(delivery.seq)! }));
  };

  return {
    /**
     * Creates or replaces the one webhook; an omitted secret is generated. The SDK retries a PUT
     * on 408, 429 and 5xx, so the same URL again with no secret (or the same one) changes
     * nothing and answers the secret in force: a retry never rotates it behind the caller's back.
     */
    put(tenantId: string, input: WebhookInput): { url: string; secret: string; enabled: boolean } {
      const refused = refusedWebhookUrl(input.url, config);
      if (refused !== undefined) throw badRequest('webhook_url_not_allowed', refused);
      return units.atNow(tenantId, ({ nowMs, tables }) => {
        const current = tables.webhooks.get(tenantId);
        if (current?.enabled && current.url === input.url && (input.secret === undefined || input.secret === current.secret)) {
          return { url: current.url, secret: current.secret, enabled: true };
        }
        const secret = input.secret ?? newWebhookSecret();
        tables.webhooks.put({ tenantId, url: input.url, secret, enabled: true, sinceMs: current?.sinceMs ?? nowMs, updatedAtMs: nowMs });
        return { url: input.url, secret, enabled: true };
      });
    },

    /** Never the secret. */
    get(tenantId: string): { url: string; enabled: boolean } {
      const hook = committed.webhooks.get(tenantId);
      if (!hook) throw new DomainError('not_found', 'not_found', 'no webhook is configured for this team: PUT /v1/webhooks sets one');
      return { url: hook.url, enabled: hook.enabled };
    },

    /** Harmless when none is set (the SDK retries it too); what was still pending will not be sent. */
    delete(tenantId: string): void {
      units.atNow(tenantId, ({ tables }) => {
        tables.webhooks.delete(tenantId);
        tables.webhooks.failPending(tenantId, 'the webhook was deleted before this was delivered');
      });
    },

    deliveries(tenantId: string, filter: DeliveryFilter): DeliveryRecord[] {
      return records(committed.webhooks.list(tenantId, filter));
    },

    /** Pending again, due now, with a fresh backoff schedule and the same webhook-id. */
    redeliver(tenantId: string, id: string): DeliveryRecord {
      const delivery = units.atNow(tenantId, ({ nowMs, tables }) => {
        const found = tables.webhooks.byId(tenantId, id);
        if (!found) throw notFound(`webhook delivery ${id}`);
        if (!tables.webhooks.get(tenantId)?.enabled) throw conflict('webhook_not_configured', 'no webhook is configured to redeliver to: PUT /v1/webhooks sets one');
        tables.webhooks.redeliver(found.seq, nowMs);
        return tables.webhooks.delivery(found.seq)!;
      });
      worker.nudge();
      return records([delivery])[0];
    },

    flush: (tenantId: string) => worker.flush(tenantId),
    start: (log: WorkerLog) => worker.start(log),
    stop: () => worker.stop(),
  };
}
