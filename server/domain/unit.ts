import type { Store } from '../../store/index.js';
import type { ResetCounts } from '../../store/reset.js';
import type { HeldSubstitutes, SnapshotTable, SnapshotValues } from '../../store/snapshot.js';
import type { WorkloadRow } from '../../store/workloads.js';
import type { ClockMode, ClockView } from './clock-view.js';
import type { RunContext, RunEnd } from './workloads/run.js';

/*
 * The unit of work as the rest of the domain sees it: a unit and its tables, the seam that opens
 * units, and the store's ports outside them, with the names of the store's members each hands out.
 * Kept out of unit-of-work.ts, which makes them of the Store: what a unit calls (the clock, the
 * materialiser, the workload rules, the outbox) names a unit or its tables without importing the
 * module that calls it.
 */

/**
 * The table stores: the store without its connection, its transactions, its lifecycle and the
 * state that is not one tenant operation's. Only the unit of work (unit-of-work.ts) and the
 * composition (services.ts) hold the Store, so nothing else in the domain can open a transaction
 * (store.write, writeTogether), and a unit alone hands out the tables (TenantUnit.tables), inside
 * its own; the rest of the domain gets the narrow ports below, built by the composition.
 */
export type Tables = Omit<Store, (typeof NOT_TABLES)[number]> & {
  tenants: Omit<Store['tenants'], (typeof NOT_TENANT_ROWS)[number]>;
};
/** What Tables leaves out of the store: the unit of work copies the store without them (unit-of-work.ts). */
export const NOT_TABLES = ['db', 'write', 'writeTogether', 'checkpointSoon', 'close', 'ping', 'journal', 'snapshot', 'reset', 'tenants'] as const;
/** Key registration is a port of its own (RegisterKey, MoveKeys), and finding stray keys a committed read. */
export const NOT_TENANT_ROWS = ['register', 'moveKeys', 'notInOwnTenant'] as const;

/**
 * One tenant operation at the tenant's virtual now, inside the one write transaction the seam
 * opened for it. Whatever it reads of a workload has been materialised up to now first (which
 * writes what fell due), and every status change that materialising passes goes into the webhook
 * outbox in the same transaction, so a read that moves a run on announces it in the same commit.
 */
export interface TenantUnit {
  readonly tenantId: string;
  /** The table stores, for what this operation reads and writes inside its transaction. */
  readonly tables: Tables;
  /** The tenant's virtual time this operation runs at. */
  readonly nowMs: number;

  /** The tenant's workload at now, or 404: a malformed id, a missing one and another tenant's read the same. */
  workload(id: string): WorkloadRow;

  /**
   * A row of this tenant read some other way (an asset's holder, say), brought up to now. The
   * workload rules bound to it apply on the way, each at its trigger's time: the run is
   * materialised up to it, the rule applies, the run goes on from there.
   */
  materialise(row: WorkloadRow): WorkloadRow;

  /**
   * The row as it is when no workload rule of it is due by now; else brought up to now, the rules
   * applying on the way. What a rule changes (a recovery, a failure) changes the run's timeline,
   * which the stored row's does not show until then.
   */
  withDueRulesApplied(row: WorkloadRow): WorkloadRow;

  /** Every workload of the tenant that may still change, brought up to now; once per operation. */
  materialiseEveryWorkload(): void;

  /** The simulated run behind a workload: its spec, interventions and timeline. */
  run(row: WorkloadRow): RunContext;

  /** When the workload's run ends by its timeline, and how: run(row).timeline's, kept for many more runs. */
  end(row: WorkloadRow): RunEnd;

  /**
   * Records an intervention on a workload and applies it; answers the row after it. It takes
   * effect 1 ms after everything already materialised, so the timeline before it (already stored
   * and announced) is the same with or without it.
   */
  intervene(row: WorkloadRow, kind: string, args?: object): WorkloadRow;

  /** As intervene, 1 ms after `afterMs` (a workload rule's trigger time) on a row materialised that far. */
  interveneAfter(current: WorkloadRow, afterMs: number, kind: string, args: object): WorkloadRow;

  /** Changes the clock's mode (and scale), keeping the virtual time. */
  setClock(mode: ClockMode, scale?: number): ClockView;

  /** Moves virtual time forward; what falls due is materialised as the operation reads it. */
  advanceClock(seconds: number): ClockView;

  /** Back to the configured mode and scale, keeping the current virtual time. */
  resetClock(): ClockView;

  /** The clock a snapshot saved: its mode and scale, resuming at its virtual time. */
  restoreClock(mode: ClockMode, scale: number, nowMs: number): ClockView;

  /** Deletes everything the tenant owns (the clock row's virtual time aside); answers the counts. */
  deleteTenantData(): ResetCounts;

  /**
   * A snapshot's rows written into this tenant (its state deleted first); answers the counts per
   * table. With `held`, the tables it substitutes are copied from the rows holdSnapshot kept.
   */
  insertSnapshot(
    columns: Record<SnapshotTable, readonly string[]>,
    rows: Record<SnapshotTable, Iterable<SnapshotValues>>,
    held?: { id: number; substitutes: HeldSubstitutes },
  ): Record<SnapshotTable, number>;

  /** Keeps a document's rows in the store for later restores to copy; rolled back with this unit. */
  holdSnapshot(columns: Record<SnapshotTable, readonly string[]>, rows: Record<SnapshotTable, Iterable<SnapshotValues>>): number;

  /** Whether the rows holdSnapshot answered `id` for are the ones held now. */
  holdsSnapshot(id: number): boolean;
}

/**
 * The seam every tenant operation goes through: it opens the transaction, gives the operation its
 * tenant at now, and commits once. Units never nest: an operation that needs another tenant
 * operation's work calls the unit it was given, so nothing can open a second transaction (a
 * SAVEPOINT whose rollback would undo part of the first) or materialise the tenant twice.
 */
export interface UnitsOfWork {
  /** `op` at the tenant's now, in one IMMEDIATE transaction. */
  atNow<T>(tenantId: string, op: (unit: TenantUnit) => T): T;

  /**
   * Like atNow, committed together with the other keyed writes of this event-loop turn (the
   * group commit); the promise settles after the COMMIT.
   */
  atNowTogether<T>(tenantId: string, op: (unit: TenantUnit) => T): Promise<T>;

  /**
   * Every unsettled workload of the tenant brought up to its now, as materialiseEveryWorkload
   * does, but a unit of work per slice of workloads, the event loop turning between them: each
   * workload is materialised (and its status changes announced) in one transaction, never half,
   * while other requests run between slices. Each slice reads its rows and the tenant's now
   * afresh, so a clock move, a reset or a restore in between leaves nothing stale to write (a
   * workload stored meanwhile may be left to the reads, which materialise what they read).
   * Settles once a slice has found no more.
   */
  everyWorkloadInSlices(tenantId: string): Promise<void>;

  /**
   * `op` in a unit whose tenant is up to now: every unsettled workload brought up to now in
   * slices first (everyWorkloadInSlices), so that op's unit, one transaction, has only what fell
   * due since to write before op reads the whole tenant.
   */
  atNowUpToDate<T>(tenantId: string, op: (unit: TenantUnit) => T): Promise<T>;

  /**
   * When each unsettled workload of the tenant ends (TenantUnit.end), worked out outside any
   * transaction, a slice at a time with the event loop turning between: simulating a run reads
   * its row and interventions and writes nothing, and what it finds is kept by their content,
   * so a unit asking later gets it at once unless an intervention has changed the run since.
   */
  endsInSlices(tenantId: string): Promise<void>;

  /**
   * Several tenants' operations in one transaction, each with its own unit: a scenario file is
   * applied to every tenant it names, or to none.
   */
  acrossTenants<T>(fn: (atNow: <U>(tenantId: string, op: (unit: TenantUnit) => U) => U) => T): T;
}

/**
 * Reads of committed rows outside any unit, for what needs no materialising (a list of a tenant's
 * secrets), named method by method: the domain, given these and the units, writes tenant state
 * only inside a unit. The names, by table store, are what the unit of work picks from the store
 * (unit-of-work.ts), so the type and the object it builds are one list.
 */
export const COMMITTED_READS = {
  secrets: ['list', 'byId'],
  /** Every fault rule, for their list. */
  faults: ['list'],
  /**
   * A key's record as memory holds it (a replay answered without a statement), and its read after
   * the group commit that wrote it, which keeps it in memory for the retries.
   */
  idempotency: ['cached', 'find'],
  /** The keys registered to a tenant other than their own, for the key mapping at start. */
  tenants: ['notInOwnTenant'],
  /** A run's interventions, which its simulation is derived from: read in a unit and outside one (a run's end, endsInSlices). */
  runtime: ['interventions'],
  /** A tenant's connections, and one by reference with its pinned secret (a workload checked but not admitted). */
  connections: ['find', 'list'],
  /** A tenant's assets, read with no unit: the virtual clock alone moves an import to ready (assets/state.ts). */
  assets: ['get', 'list', 'usage', 'byKey', 'contents'],
  /** The server's own secrets (not a tenant's): a page cursor is checked before its listing's unit opens. */
  settings: ['secret'],
  /**
   * The webhooks and their deliveries as committed, for the delivery worker, which runs outside
   * requests and writes each outcome in a unit; onEnqueue names the call a delivery written (in
   * the transaction that writes it) makes, which writes nothing. And the listings of deliveries
   * with their attempts.
   */
  webhooks: ['get', 'enabledTenants', 'heads', 'head', 'delivery', 'pending', 'onEnqueue', 'list', 'attempts'],
  /** Whether a tenant has a run left to materialise, before a unit is opened to do it. */
  workloads: ['hasUnsettled'],
} as const satisfies { [K in keyof Store]?: ReadonlyArray<keyof Store[K]> };

export type CommittedReads = { [K in keyof typeof COMMITTED_READS]: Pick<Store[K], Extract<(typeof COMMITTED_READS)[K][number], keyof Store[K]>> } & {
  /**
   * The tenant's settings as committed, from memory while unchanged: the clock row for its
   * virtual now (VirtualClock: a change reads and writes its unit's own); the live fault rules on
   * every request, the fault hook's look before it opens a unit; the recipe overrides, read
   * outside a transaction so the cache keeps them for the next list; whether it has a budget,
   * before an admission's unit (budgetReady); whether it has workload rules, before their list's
   * slices.
   */
  cached: Store['cached'];
};

/** A key's first use: it registers the key, and the tenant with it when new, in a transaction of its own. */
export type RegisterKey = (keyHash: string, keyId: string, tenantId: string, wallMs: number) => { tenantId: string; keyId: string };

/** At start: registered keys moved to the tenants the configuration gives them, in a transaction of its own; answers the moves. */
export type MoveKeys = Store['tenants']['moveKeys'];

/** The request journal: its rows commit in transactions of their own, never inside a state change's. */
export type JournalPort = Omit<Store['journal'], 'append'> & {
  append(entries: Parameters<Store['journal']['append']>[0], size: number): void;
};

/** A snapshot's whole-tenant copy out, read from committed state beside the server's writes. */
export interface SnapshotPort {
  openReader: Store['snapshot']['openReader'];
  /** A checkpoint on the checkpointer's thread now (after a restore's megabytes of WAL). */
  checkpointSoon(): void;
}
