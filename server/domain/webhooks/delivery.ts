import { performance } from 'node:perf_hooks';
import type { DeliveryHead } from '../../../store/webhooks.js';
import type { DomainContext } from '../context.js';
import { refusedWebhookUrl } from './hosts.js';
import { delivered, send, type SendDeps } from './send.js';

/**
 * Virtual time from a failed attempt to the next: after the sixth failure a delivery has failed.
 * Virtual, so that a test sees a retry by advancing the clock rather than by waiting.
 */
export const RETRY_AFTER_MS = [60_000, 300_000, 1_800_000, 7_200_000, 43_200_000] as const;

/**
 * Attempts in flight. Each tenant has a slot of its own, so a tenant whose receivers hang holds
 * its slot and never another tenant's: one attempt of every tenant with something due can start
 * whatever the others hold. A tenant's further attempts, up to MAX_IN_FLIGHT_PER_TENANT, share a
 * pool of SHARED_IN_FLIGHT handed out in turn across tenants. MAX_IN_FLIGHT bounds the sockets of
 * all of it when very many tenants have something due at once.
 */
export const MAX_IN_FLIGHT_PER_TENANT = 4;
export const SHARED_IN_FLIGHT = 16;
const MAX_IN_FLIGHT = 512;
/** How often (wall) due deliveries are looked for: retries fall due by the clock, not by a write. */
const POLL_MS = 250;
/** How often (wall) tenants with a webhook and a realtime clock are materialised without a read. */
const MATERIALISE_EVERY_MS = 1_000;
/** A flush stops waiting after this long (wall), answering what is still due. */
const FLUSH_LIMIT_MS = 60_000;

/** What the worker logs through: pino's shape, so the app's logger fits. */
export interface WorkerLog {
  debug(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

const SILENT: WorkerLog = { debug: () => undefined, error: () => undefined };

/**
 * What the worker works with. It runs outside requests: what is due, a delivery and its webhook
 * are read from committed rows, each outcome is written in a unit of the delivery's tenant (a
 * transaction of its own, as each always was); and what an attempt over the wire reads (send.ts).
 */
export type DeliveryDeps = Pick<DomainContext, 'committed' | 'units'> & SendDeps;

/**
 * The outbox's sending side. Rows are written by the status changes themselves
 * (outbox.ts); this picks the due ones after their commit and sends them, signed, over global
 * fetch. At least once: an attempt is recorded only after its answer, so a crash or a shutdown
 * in between leaves the row pending for the next start, which sends it again with the same
 * webhook-id. In order per workload: only the oldest pending delivery of a workload is ever
 * sent, and one at a time. Nothing here holds a request: attempts run beside the server, each
 * bounded by --webhook-timeout-ms and by the in-flight limits.
 */
export function createDeliveryWorker(deps: DeliveryDeps) {
  const { committed, clock, config, units } = deps;
  const inFlight = new Map<number, { tenantId: string; done: Promise<void> }>();
  const busyWorkloads = new Set<string>();
  /** Attempts in flight by tenant; a tenant with none has no entry. */
  const perTenant = new Map<string, number>();
  const stopped = new AbortController();
  let started = false;
  let scheduled = false;
  let timer: NodeJS.Timeout | undefined;
  let materialisedAt = 0;
  let materialising: Promise<void> | undefined;
  let log = SILENT;

  /** A pass right after the current transaction: enqueue calls this inside the one that writes. */
  const nudge = () => {
    if (!started || scheduled || stopped.signal.aborted) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      guarded(pass);
    });
  };

  /**
   * Due heads the last scan found but the limits held back. A finished attempt takes from here
   * and looks up its own workload's next delivery: a scan of every pending delivery after each
   * attempt was a quarter of the worker's time with a thousand pending (bench/, webhooks).
   */
  let ready: DeliveryHead[] = [];

  /** The tenant served last from the shared pool: the next turn starts after it. */
  let lastShared = '';

  /** Whether `tenantId` may start one more attempt now, and from which slots. */
  function slotFor(tenantId: string): 'own' | 'shared' | undefined {
    if (stopped.signal.aborted || inFlight.size >= MAX_IN_FLIGHT) return undefined;
    const mine = perTenant.get(tenantId) ?? 0;
    if (mine === 0) return 'own';
    // Every tenant with an attempt in flight holds one slot of its own; the rest are shared.
    const shared = inFlight.size - perTenant.size;
    return mine < MAX_IN_FLIGHT_PER_TENANT && shared < SHARED_IN_FLIGHT ? 'shared' : undefined;
  }

  /**
   * Starts what the limits allow of `heads` (due, oldest first) and answers the rest. Each tenant
   * has its own queue, oldest first; tenants take turns, one attempt per turn, starting after
   * the one the shared pool served last, so a tenant with a thousand due deliveries does not
   * starve one with five.
   */
  function launchAll(heads: readonly DeliveryHead[]): DeliveryHead[] {
    const queues = new Map<string, DeliveryHead[]>();
    for (const head of heads) {
      const queue = queues.get(head.tenantId);
      if (queue) queue.push(head);
      else queues.set(head.tenantId, [head]);
    }
    const ring = [...queues.keys()].sort();
    const from = ring.findIndex((id) => id > lastShared);
    const turns = from <= 0 ? ring : [...ring.slice(from), ...ring.slice(0, from)];
    for (let started = true; started;) {
      started = false;
      for (const tenantId of turns) {
        const queue = queues.get(tenantId)!;
        // A workload already on its way (a redelivery of an older one, say) waits its turn.
        while (queue.length && busyWorkloads.has(queue[0].workloadId)) queue.shift();
        const slot = queue.length ? slotFor(tenantId) : undefined;
        if (!slot) continue;
        if (slot === 'shared') lastShared = tenantId;
        launch(queue.shift()!);
        started = true;
      }
    }
    const launched = new Set(inFlight.keys());
    return heads.filter((h) => !launched.has(h.seq));
  }

  /** Every due head delivery, read afresh; starts what the limits allow. */
  function pass(): void {
    if (stopped.signal.aborted) return;
    const now = new Map<string, number>();
    const nowOf = (tenantId: string) => {
      let nowMs = now.get(tenantId);
      if (nowMs === undefined) now.set(tenantId, (nowMs = clock.nowMs(tenantId)));
      return nowMs;
    };
    ready = launchAll(committed.webhooks.heads().filter((h) => !inFlight.has(h.seq) && h.dueAtMs <= nowOf(h.tenantId)));
  }

  /** After an attempt of `workloadId`: its next delivery if due, then what the scan held back. */
  function next(workloadId: string): void {
    if (stopped.signal.aborted) return;
    const head = committed.webhooks.head(workloadId);
    if (head && !inFlight.has(head.seq) && head.dueAtMs <= clock.nowMs(head.tenantId)) ready.push(head);
    ready = launchAll(ready.filter((h) => !inFlight.has(h.seq)));
  }

  function launch(head: DeliveryHead): void {
    busyWorkloads.add(head.workloadId);
    perTenant.set(head.tenantId, (perTenant.get(head.tenantId) ?? 0) + 1);
    const done = attempt(head)
      .catch((err) => log.error({ err, delivery_seq: head.seq }, 'webhook delivery: the attempt could not be recorded'))
      .finally(() => {
        busyWorkloads.delete(head.workloadId);
        const left = perTenant.get(head.tenantId)! - 1;
        if (left) perTenant.set(head.tenantId, left);
        else perTenant.delete(head.tenantId);
        inFlight.delete(head.seq);
        guarded(() => next(head.workloadId));
      });
    inFlight.set(head.seq, { tenantId: head.tenantId, done });
  }

  async function attempt(head: DeliveryHead): Promise<void> {
    const { seq } = head;
    const d = committed.webhooks.delivery(seq);
    // Held back by the limits, it may have been tried and rescheduled meanwhile, or a
    // redelivery of an older one of its workload may now go first.
    if (d?.state !== 'pending' || d.dueAtMs! > clock.nowMs(d.tenantId) || committed.webhooks.head(head.workloadId)?.seq !== seq) return;
    const hook = committed.webhooks.get(d.tenantId);
    const refused = !hook?.enabled ? 'no webhook is configured any more' : refusedWebhookUrl(hook.url, config);
    if (refused !== undefined || !hook) {
      units.atNow(d.tenantId, ({ tables }) => tables.webhooks.fail(seq, refused ?? 'no webhook is configured any more'));
      return;
    }
    const wallMs = clock.wallNow();
    const startedAt = performance.now();
    const outcome = await send(deps, d, hook, stopped.signal);
    // Shutting down: not recorded, so the next start sends it again.
    if (!outcome) return;
    const latencyMs = Math.round((performance.now() - startedAt) * 10) / 10;
    const settled = units.atNow(d.tenantId, ({ nowMs: atMs, tables }) => {
      const current = tables.webhooks.delivery(seq);
      if (current?.state !== 'pending') return undefined;
      const retryAfter = delivered(outcome) ? undefined : RETRY_AFTER_MS[current.tries];
      const nextRetryAtMs = retryAfter === undefined ? null : atMs + retryAfter;
      const state = delivered(outcome) ? 'delivered' : nextRetryAtMs === null ? 'failed' : 'pending';
      tables.webhooks.settle({ deliverySeq: seq, url: hook.url, wallMs, atMs, latencyMs, nextRetryAtMs, ...outcome }, state, nextRetryAtMs);
      return state;
    });
    log.debug(
      { delivery: d.id, workload: d.workloadId, type: d.type, status: outcome.statusCode, error: outcome.error, ms: latencyMs, state: settled },
      'webhook delivery attempt',
    );
  }

  /**
   * Tenants with a webhook see their runs' status changes without reading them: realtime clocks
   * move by themselves, so their unsettled workloads are materialised every second, in slices
   * (a tenant of many runs holds no other tenant up). Manual clocks move by advance, which
   * materialises. The rows are those any read would write.
   */
  async function materialiseRealtimeTenants(): Promise<void> {
    for (const tenantId of committed.webhooks.enabledTenants()) {
      if (stopped.signal.aborted) return;
      if (clock.view(tenantId).mode !== 'realtime' || !committed.workloads.hasUnsettled(tenantId)) continue;
      await units.everyWorkloadInSlices(tenantId);
    }
  }

  /** Work the server does on its own: a failure (the database gone, say) is logged, never thrown. */
  function guarded(work: () => void): void {
    try {
      work();
    } catch (err) {
      log.error({ err }, 'webhook deliveries: a pass failed');
    }
  }

  const tick = () => guarded(() => {
    pass();
    // A pass still running (many runs to write) is not overlapped by the next.
    if (!materialising && clock.wallNow() - materialisedAt >= MATERIALISE_EVERY_MS) {
      materialisedAt = clock.wallNow();
      materialising = materialiseRealtimeTenants()
        .catch((err: unknown) => log.error({ err }, 'webhook deliveries: a pass failed'))
        .finally(() => (materialising = undefined));
    }
  });

  /** Due head deliveries of the tenant, by its clock. */
  function dueCount(tenantId: string): number {
    const nowMs = clock.nowMs(tenantId);
    return committed.webhooks.heads(tenantId).filter((h) => h.dueAtMs <= nowMs).length;
  }

  return {
    nudge,

    /** Sends what was left pending (before a crash, say) and from then on what falls due. */
    start(logger: WorkerLog): void {
      if (started) return;
      started = true;
      log = logger;
      committed.webhooks.onEnqueue(nudge);
      timer = setInterval(tick, POLL_MS);
      timer.unref();
      nudge();
    },

    /** Cuts attempts short (they stay pending) and waits until none is left running. */
    async stop(): Promise<void> {
      stopped.abort();
      clearInterval(timer);
      await Promise.allSettled([...inFlight.values()].map((f) => f.done).concat(materialising ?? []));
    },

    /**
     * Until nothing of the tenant is due: its status changes up to its now are materialised, then
     * due deliveries are sent and their outcomes recorded, again while more fall due (the next of
     * a workload, a retry of a realtime clock), within FLUSH_LIMIT_MS.
     */
    async flush(tenantId: string): Promise<{ due: number; pending: number }> {
      if (committed.webhooks.get(tenantId)?.enabled) await units.everyWorkloadInSlices(tenantId);
      const deadline = performance.now() + FLUSH_LIMIT_MS;
      for (;;) {
        pass();
        const all = [...inFlight.values()];
        const mine = all.filter((f) => f.tenantId === tenantId);
        const due = dueCount(tenantId);
        if (due === 0 || stopped.signal.aborted || performance.now() >= deadline) {
          return { due, pending: committed.webhooks.pending(tenantId) - due };
        }
        // Its own attempts, or a slot others hold; with neither, one fell due after the pass
        // looked, and the next pass (a turn later, never a busy loop) starts it.
        await (all.length ? Promise.race((mine.length ? mine : all).map((f) => f.done)) : new Promise(setImmediate));
      }
    },
  };
}

