import type { Db } from './db.js';

export interface WebhookRow {
  tenantId: string;
  url: string;
  secret: string;
  enabled: boolean;
  sinceMs: number;
  updatedAtMs: number;
}

type DeliveryState = 'pending' | 'delivered' | 'failed';

interface NewDelivery {
  id: string;
  tenantId: string;
  workloadId: string;
  type: string;
  body: string;
  createdAtMs: number;
  /** Virtual time of the first attempt. */
  dueAtMs: number;
}

export interface DeliveryRow extends Omit<NewDelivery, 'dueAtMs'> {
  seq: number;
  state: DeliveryState;
  dueAtMs: number | null;
  tries: number;
  attempts: number;
  lastError: string | null;
}

/** The oldest pending delivery of one workload: the only one of its deliveries that may go next. */
export interface DeliveryHead {
  seq: number;
  tenantId: string;
  workloadId: string;
  dueAtMs: number;
}

export interface AttemptRow {
  deliverySeq: number;
  attempt: number;
  url: string;
  wallMs: number;
  atMs: number;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  nextRetryAtMs: number | null;
  faultId: string | null;
}

export interface DeliveryFilter {
  workloadId?: string;
  state?: DeliveryState;
  limit: number;
}

const DELIVERY_COLUMNS = `seq, id, tenant_id AS tenantId, workload_id AS workloadId, type, body, created_at_ms AS createdAtMs,
  state, due_at_ms AS dueAtMs, tries, attempts, last_error AS lastError`;
const ATTEMPT_COLUMNS = `delivery_seq AS deliverySeq, attempt, url, wall_ms AS wallMs, at_ms AS atMs, status_code AS statusCode,
  error, latency_ms AS latencyMs, next_retry_at_ms AS nextRetryAtMs, fault_id AS faultId`;

type StoredWebhook = Omit<WebhookRow, 'enabled'> & { enabled: number };

/** The tenant's webhook and the outbox of its deliveries (migration 007). */
export function createWebhookStore(db: Db) {
  const get = db.prepare<[string], StoredWebhook>(
    `SELECT tenant_id AS tenantId, url, secret, enabled, since_ms AS sinceMs, updated_at_ms AS updatedAtMs FROM webhooks WHERE tenant_id = ?`,
  );
  const put = db.prepare(
    `INSERT INTO webhooks (tenant_id, url, secret, enabled, since_ms, updated_at_ms) VALUES (@tenantId, @url, @secret, @enabled, @sinceMs, @updatedAtMs)
     ON CONFLICT (tenant_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, enabled = excluded.enabled, updated_at_ms = excluded.updated_at_ms`,
  );
  const remove = db.prepare('DELETE FROM webhooks WHERE tenant_id = ?');
  const enabledTenants = db.prepare<[], string>('SELECT tenant_id FROM webhooks WHERE enabled = 1').pluck();
  const insert = db.prepare(
    `INSERT INTO webhook_deliveries (id, tenant_id, workload_id, type, body, created_at_ms, state, due_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', ?)`,
  );
  // SQLite takes the bare columns of a min() aggregate from the row holding the minimum.
  const heads = db.prepare<[], DeliveryHead>(
    `SELECT min(seq) AS seq, tenant_id AS tenantId, workload_id AS workloadId, due_at_ms AS dueAtMs
     FROM webhook_deliveries WHERE state = 'pending' GROUP BY workload_id ORDER BY seq`,
  );
  const tenantHeads = db.prepare<[string], DeliveryHead>(
    `SELECT min(seq) AS seq, tenant_id AS tenantId, workload_id AS workloadId, due_at_ms AS dueAtMs
     FROM webhook_deliveries WHERE state = 'pending' AND tenant_id = ? GROUP BY workload_id ORDER BY seq`,
  );
  const headOf = db.prepare<[string], DeliveryHead>(
    `SELECT seq, tenant_id AS tenantId, workload_id AS workloadId, due_at_ms AS dueAtMs
     FROM webhook_deliveries WHERE workload_id = ? AND state = 'pending' ORDER BY seq LIMIT 1`,
  );
  const bySeq = db.prepare<[number], DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE seq = ?`);
  const byId = db.prepare<[string, string], DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE tenant_id = ? AND id = ?`);
  const pendingCount = db.prepare<[string], number>(`SELECT count(*) FROM webhook_deliveries WHERE tenant_id = ? AND state = 'pending'`).pluck();
  const lastDue = db.prepare<[string], number | null>(`SELECT max(due_at_ms) FROM webhook_deliveries WHERE tenant_id = ? AND state = 'pending'`).pluck();
  const settle = db.prepare(
    `UPDATE webhook_deliveries SET state = @state, due_at_ms = @dueAtMs, tries = tries + 1, attempts = attempts + 1, last_error = @error
     WHERE seq = @seq AND state = 'pending'`,
  );
  const addAttempt = db.prepare(
    `INSERT INTO webhook_attempts (delivery_seq, attempt, url, wall_ms, at_ms, status_code, error, latency_ms, next_retry_at_ms, fault_id)
     SELECT @deliverySeq, attempts, @url, @wallMs, @atMs, @statusCode, @error, @latencyMs, @nextRetryAtMs, @faultId FROM webhook_deliveries WHERE seq = @deliverySeq`,
  );
  const failWithout = db.prepare(`UPDATE webhook_deliveries SET state = 'failed', due_at_ms = NULL, last_error = ? WHERE seq = ? AND state = 'pending'`);
  const failTenant = db.prepare(`UPDATE webhook_deliveries SET state = 'failed', due_at_ms = NULL, last_error = ? WHERE tenant_id = ? AND state = 'pending'`);
  const again = db.prepare(`UPDATE webhook_deliveries SET state = 'pending', due_at_ms = ?, tries = 0, last_error = NULL WHERE seq = ?`);
  const attemptsOf = db.prepare<[string], AttemptRow>(
    `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE delivery_seq IN (SELECT value FROM json_each(?)) ORDER BY delivery_seq, attempt`,
  );
  const listed = db.prepare<[{ tenantId: string; workloadId: string | null; state: string | null; limit: number }], DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
     WHERE tenant_id = @tenantId AND (@workloadId IS NULL OR workload_id = @workloadId) AND (@state IS NULL OR state = @state)
     ORDER BY seq LIMIT @limit`,
  );
  const toWebhook = (r: StoredWebhook | undefined): WebhookRow | undefined => r && { ...r, enabled: r.enabled === 1 };

  let enqueued: (() => void) | undefined;
  return {
    get(tenantId: string): WebhookRow | undefined {
      return toWebhook(get.get(tenantId));
    },
    /** Creates or replaces; a replacement keeps the first `sinceMs`. */
    put(row: WebhookRow): void {
      put.run({ ...row, enabled: row.enabled ? 1 : 0 });
    },
    delete(tenantId: string): boolean {
      return remove.run(tenantId).changes > 0;
    },
    enabledTenants(): string[] {
      return enabledTenants.all();
    },
    enqueue(d: NewDelivery): void {
      insert.run(d.id, d.tenantId, d.workloadId, d.type, d.body, d.createdAtMs, d.dueAtMs);
      enqueued?.();
    },
    /**
     * fn is called after each enqueue, inside the enqueuing transaction (which may yet roll back):
     * it may only schedule work for after it, never read or send.
     */
    onEnqueue(fn: () => void): void {
      enqueued = fn;
    },
    /** The oldest pending delivery of every workload (of one tenant), oldest first. */
    heads(tenantId?: string): DeliveryHead[] {
      return tenantId === undefined ? heads.all() : tenantHeads.all(tenantId);
    },
    /** The oldest pending delivery of one workload. */
    head(workloadId: string): DeliveryHead | undefined {
      return headOf.get(workloadId);
    },
    delivery(seq: number): DeliveryRow | undefined {
      return bySeq.get(seq);
    },
    byId(tenantId: string, id: string): DeliveryRow | undefined {
      return byId.get(tenantId, id);
    },
    pending(tenantId: string): number {
      return pendingCount.get(tenantId)!;
    },
    /** The latest virtual time a pending delivery of the tenant falls due at; null with none pending. */
    lastDueAtMs(tenantId: string): number | null {
      return lastDue.get(tenantId)!;
    },
    /**
     * Records one attempt and what follows from it: delivered, pending again at `dueAtMs`, or
     * failed. False (nothing written) when the delivery is no longer pending: reset or redelivered
     * while the attempt was on its way.
     */
    settle(attempt: Omit<AttemptRow, 'attempt'>, state: DeliveryState, dueAtMs: number | null): boolean {
      if (settle.run({ seq: attempt.deliverySeq, state, dueAtMs, error: attempt.error }).changes === 0) return false;
      addAttempt.run(attempt);
      return true;
    },
    /** Ends a pending delivery without an attempt (nowhere to send it). */
    fail(seq: number, error: string): void {
      failWithout.run(error, seq);
    },
    failPending(tenantId: string, error: string): number {
      return failTenant.run(error, tenantId).changes;
    },
    /** Pending again from `dueAtMs`, with a fresh backoff schedule and the same id. */
    redeliver(seq: number, dueAtMs: number): void {
      again.run(dueAtMs, seq);
    },
    /** Oldest first. */
    list(tenantId: string, f: DeliveryFilter): DeliveryRow[] {
      return listed.all({ tenantId, workloadId: f.workloadId ?? null, state: f.state ?? null, limit: f.limit });
    },
    /** The attempts of each delivery, in order, by its seq: one query for a whole list. */
    attempts(seqs: number[]): Map<number, AttemptRow[]> {
      const bySeq = new Map<number, AttemptRow[]>(seqs.map((seq) => [seq, []]));
      for (const a of attemptsOf.all(JSON.stringify(seqs))) bySeq.get(a.deliverySeq)!.push(a);
      return bySeq;
    },
  };
}
