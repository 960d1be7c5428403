import { setImmediate } from 'node:timers/promises';
import type { Store } from '../../store/index.js';
import type { ResetCounts } from '../../store/reset.js';
import type { HeldSubstitutes, SnapshotTable, SnapshotValues } from '../../store/snapshot.js';
import type { WorkloadRow } from '../../store/workloads.js';
import type { ClockMode, ClockView, VirtualClock } from './clock.js';
import { notFound } from './errors.js';
import { serverIdPattern } from './ids.js';
import { enqueueStatusChanges } from './webhooks/outbox.js';
import type { Materialised, Materialiser, RunContext, RunEnd } from './workloads/materialise.js';
import { applyRule, dueRule } from './workloads/rules.js';

/**
 * Workloads brought up to now per unit of work of everyWorkloadInSlices, at most, and the wall
 * time a unit may go on taking more: the other tenants' requests run between two units, so this
 * bounds how long they wait behind one tenant's materialising. A workload that never ran to now
 * can take milliseconds.
 */
const SLICE_WORKLOADS = 64;
const SLICE_MS = 10;
/** Where a slice of workloads stopped, and whether another may follow. */
interface Slice {
  after: number;
  more: boolean;
}

/**
 * The table stores: the store without its connection, its transactions, its lifecycle and the
 * state that is not one tenant operation's. Only this module and the composition (services.ts)
 * hold the Store, so nothing else in the domain can open a transaction (store.write,
 * writeTogether), and a unit alone hands out the tables (TenantUnit.tables), inside its own; the
 * rest of the domain gets the narrow ports below, built by the composition.
 */
export type Tables = Omit<Store, (typeof NOT_TABLES)[number]> & {
  tenants: Omit<Store['tenants'], (typeof NOT_TENANT_ROWS)[number]>;
};
const NOT_TABLES = ['db', 'write', 'writeTogether', 'checkpointSoon', 'close', 'ping', 'journal', 'snapshot', 'reset', 'tenants'] as const;
/** Key registration is a port of its own (RegisterKey, MoveKeys), and finding stray keys a committed read. */
const NOT_TENANT_ROWS = ['register', 'moveKeys', 'notInOwnTenant'] as const;

/** `value` without `keys`: a copy. */
function without<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Omit<T, K> {
  const copy: Partial<T> = { ...value };
  for (const key of keys) delete copy[key];
  return copy as Omit<T, K>;
}

/** `value`'s members named in `keys`, nothing else. */
function pick<T extends object, K extends keyof T>(value: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}

/**
 * Reads of committed rows outside any unit, for what needs no materialising (a list of a tenant's
 * secrets), named method by method: the domain, given these and the units, writes tenant state
 * only inside a unit.
 */
function committedReads(store: Store) {
  return {
    secrets: pick(store.secrets, 'list', 'byId'),
    /**
     * The tenant's settings as committed, from memory while unchanged: the clock row for its
     * virtual now (VirtualClock: a change reads and writes its unit's own); the live fault rules on
     * every request, the fault hook's look before it opens a unit; the recipe overrides, read
     * outside a transaction so the cache keeps them for the next list; whether it has a budget,
     * before an admission's unit (budgetReady); whether it has workload rules, before their list's
     * slices.
     */
    cached: store.cached,
    /** Every fault rule, for their list. */
    faults: pick(store.faults, 'list'),
    /**
     * A key's record as memory holds it (a replay answered without a statement), and its read after
     * the group commit that wrote it, which keeps it in memory for the retries.
     */
    idempotency: pick(store.idempotency, 'cached', 'find'),
    /** The keys registered to a tenant other than their own, for the key mapping at start. */
    tenants: pick(store.tenants, 'notInOwnTenant'),
    /** A run's interventions, which its simulation is derived from: read in a unit and outside one (a run's end, endsInSlices). */
    runtime: pick(store.runtime, 'interventions'),
    /** A tenant's connections, and one by reference with its pinned secret (a workload checked but not admitted). */
    connections: pick(store.connections, 'find', 'list'),
    /** A tenant's assets, read with no unit: the virtual clock alone moves an import to ready (assets/state.ts). */
    assets: pick(store.assets, 'get', 'list', 'usage', 'byKey', 'contents'),
    /** The server's own secrets (not a tenant's): a page cursor is checked before its listing's unit opens. */
    settings: pick(store.settings, 'secret'),
    /**
     * The webhooks and their deliveries as committed, for the delivery worker, which runs outside
     * requests and writes each outcome in a unit; onEnqueue names the call a delivery written (in
     * the transaction that writes it) makes, which writes nothing. And the listings of deliveries
     * with their attempts.
     */
    webhooks: pick(store.webhooks, 'get', 'enabledTenants', 'heads', 'head', 'delivery', 'pending', 'onEnqueue', 'list', 'attempts'),
    /** Whether a tenant has a run left to materialise, before a unit is opened to do it. */
    workloads: pick(store.workloads, 'hasUnsettled'),
  };
}
export type CommittedReads = ReturnType<typeof committedReads>;

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

/** The table stores of a store: what a unit reads and writes inside its transaction. */
function tablesOf(store: Store): Tables {
  return { ...without(store, NOT_TABLES), tenants: without(store.tenants, NOT_TENANT_ROWS) };
}

/** The domain's part of a store outside the units, what DomainContext carries (services.ts builds it). */
export function domainPorts(store: Store): { committed: CommittedReads; registerKey: RegisterKey; moveKeys: MoveKeys; journal: JournalPort; snapshots: SnapshotPort; ping: () => void } {
  const { checkpointSoon, ping, journal, snapshot } = store;
  const { register, moveKeys } = store.tenants;
  return {
    committed: committedReads(store),
    registerKey: register,
    moveKeys: (wanted, wallMs) => store.write(() => moveKeys(wanted, wallMs)),
    // A commit of its own, counted for the checkpointer's thread as every state change is.
    journal: { ...journal, append: (entries, size) => store.write(() => journal.append(entries, size)) },
    // Looked up per export, as the store's own method: a test replaces it to make a read fail.
    snapshots: { openReader: (tenantId) => snapshot.openReader(tenantId), checkpointSoon },
    ping,
  };
}

/** Anything else names no workload: the database is not asked. */
const WORKLOAD_ID_PATTERN = serverIdPattern('wl');

/**
 * One tenant operation at the tenant's virtual now, inside the one write transaction the seam
 * opened for it. Whatever it reads of a workload has been materialised up to now first (which
 * writes what fell due), and every status change that materialising passes goes into the webhook
 * outbox in the same transaction, so a read that moves a run on announces it in the same commit.
 */
export class TenantUnit {
  private tenantMaterialised = false;
  private now: number;
  /** What applying a workload rule needs besides this unit. */
  private readonly rules: { materialiser: Materialiser };

  constructor(
    readonly tenantId: string,
    private readonly store: Store,
    /** The table stores, for what this operation reads and writes inside its transaction. */
    readonly tables: Tables,
    private readonly clock: VirtualClock,
    private readonly materialiser: Materialiser,
  ) {
    this.now = clock.nowMs(tenantId);
    this.rules = { materialiser };
  }

  /** The tenant's virtual time this operation runs at. */
  get nowMs(): number {
    return this.now;
  }

  /** The tenant's workload at now, or 404: a malformed id, a missing one and another tenant's read the same. */
  workload(id: string): WorkloadRow {
    const row = WORKLOAD_ID_PATTERN.test(id) ? this.tables.workloads.get(this.tenantId, id) : undefined;
    if (!row) throw notFound(`workload ${id}`);
    return this.materialise(row);
  }

  /**
   * A row of this tenant read some other way (an asset's holder, say), brought up to now. The
   * workload rules bound to it apply on the way, each at its trigger's time: the run is
   * materialised up to it, the rule applies, the run goes on from there.
   */
  materialise(row: WorkloadRow): WorkloadRow {
    return this.materialiseFrom(row, dueRule(this, row));
  }

  /** materialise, the first rule due already found (or none). */
  private materialiseFrom(row: WorkloadRow, first: ReturnType<typeof dueRule>): WorkloadRow {
    let current = row;
    for (let due = first; due; due = dueRule(this, current)) {
      current = applyRule(this.rules, this, this.announce(this.materialiser.materialise(this, current, due.atMs)), due);
    }
    return this.announce(this.materialiser.materialise(this, current, this.now));
  }

  /**
   * The row as it is when no workload rule of it is due by now; else brought up to now, the rules
   * applying on the way. What a rule changes (a recovery, a failure) changes the run's timeline,
   * which the stored row's does not show until then.
   */
  withDueRulesApplied(row: WorkloadRow): WorkloadRow {
    const due = dueRule(this, row);
    return due ? this.materialiseFrom(row, due) : row;
  }

  /** Every workload of the tenant that may still change, brought up to now; once per operation. */
  materialiseEveryWorkload(): void {
    if (this.tenantMaterialised) return;
    for (const row of this.tables.workloads.unsettled(this.tenantId)) this.materialise(row);
    this.tenantMaterialised = true;
  }

  /** The simulated run behind a workload: its spec, interventions and timeline. */
  run(row: WorkloadRow): RunContext {
    return this.materialiser.context(row);
  }

  /** When the workload's run ends by its timeline, and how: run(row).timeline's, kept for many more runs. */
  end(row: WorkloadRow): RunEnd {
    return this.materialiser.end(row);
  }

  /**
   * Records an intervention on a workload and applies it; answers the row after it. It takes
   * effect 1 ms after everything already materialised, so the timeline before it (already stored
   * and announced) is the same with or without it.
   */
  intervene(row: WorkloadRow, kind: string, args: object = {}): WorkloadRow {
    return this.interveneAfter(this.materialise(row), this.now, kind, args);
  }

  /** As intervene, 1 ms after `afterMs` (a workload rule's trigger time) on a row materialised that far. */
  interveneAfter(current: WorkloadRow, afterMs: number, kind: string, args: object): WorkloadRow {
    const atMs = Math.max(afterMs, current.materialisedToMs) + 1;
    this.tables.runtime.addIntervention(current.id, atMs, kind, args);
    return this.announce(this.materialiser.materialise(this, current, atMs));
  }

  /** Changes the clock's mode (and scale), keeping the virtual time. */
  setClock(mode: ClockMode, scale?: number): ClockView {
    return this.moved(this.clock.set(this, mode, scale));
  }

  /** Moves virtual time forward; what falls due is materialised as the operation reads it. */
  advanceClock(seconds: number): ClockView {
    return this.moved(this.clock.advance(this, seconds));
  }

  /** Back to the configured mode and scale, keeping the current virtual time. */
  resetClock(): ClockView {
    return this.moved(this.clock.resetToDefaults(this));
  }

  /** The clock a snapshot saved: its mode and scale, resuming at its virtual time. */
  restoreClock(mode: ClockMode, scale: number, nowMs: number): ClockView {
    return this.moved(this.clock.restore(this, mode, scale, nowMs));
  }

  /** Deletes everything the tenant owns (the clock row's virtual time aside); answers the counts. */
  deleteTenantData(): ResetCounts {
    return this.store.reset.deleteTenantData(this.tenantId);
  }

  /**
   * A snapshot's rows written into this tenant (its state deleted first); answers the counts per
   * table. With `held`, the tables it substitutes are copied from the rows holdSnapshot kept.
   */
  insertSnapshot(
    columns: Record<SnapshotTable, readonly string[]>,
    rows: Record<SnapshotTable, Iterable<SnapshotValues>>,
    held?: { id: number; substitutes: HeldSubstitutes },
  ): Record<SnapshotTable, number> {
    return this.store.snapshot.insert(this.tenantId, columns, rows, held);
  }

  /** Keeps a document's rows in the store for later restores to copy; rolled back with this unit. */
  holdSnapshot(columns: Record<SnapshotTable, readonly string[]>, rows: Record<SnapshotTable, Iterable<SnapshotValues>>): number {
    return this.store.snapshot.hold(columns, rows);
  }

  /** Whether the rows holdSnapshot answered `id` for are the ones held now. */
  holdsSnapshot(id: number): boolean {
    return this.store.snapshot.holds(id);
  }

  private moved(view: ClockView): ClockView {
    this.now = view.nowMs;
    this.tenantMaterialised = false;
    return view;
  }

  private announce({ row, run, passed }: Materialised): WorkloadRow {
    if (run && passed.length) enqueueStatusChanges(this.tables, row, run, passed);
    return row;
  }
}

/**
 * The seam every tenant operation goes through: it opens the transaction, gives the operation its
 * tenant at now, and commits once. Units never nest: an operation that needs another tenant
 * operation's work calls the unit it was given, so nothing can open a second transaction (a
 * SAVEPOINT whose rollback would undo part of the first) or materialise the tenant twice.
 */
export function createUnitsOfWork(deps: { store: Store; clock: VirtualClock; materialiser: Materialiser }) {
  const { store, clock, materialiser } = deps;
  const tables = tablesOf(store);
  let open = false;

  function inUnit<T>(tenantId: string, op: (unit: TenantUnit) => T): T {
    if (open) throw new Error('a tenant unit of work was opened inside another; pass the open unit down instead');
    open = true;
    try {
      return op(new TenantUnit(tenantId, store, tables, clock, materialiser));
    } finally {
      open = false;
    }
  }

  /**
   * The tenant's unsettled workloads, oldest first, a slice at a time (SLICE_WORKLOADS, or
   * SLICE_MS of wall time): `run` runs each slice's walk (in a unit of work, or in none), the walk
   * calls `each` on its rows, and the event loop turns between slices.
   */
  async function inSlices(tenantId: string, run: (slice: (each: (row: WorkloadRow) => void) => Slice) => Slice): Promise<void> {
    for (let after = 0, more = true; more; await setImmediate()) {
      ({ after, more } = run((each) => {
        const started = performance.now();
        const page = tables.workloads.unsettledAfter(tenantId, after, SLICE_WORKLOADS);
        for (const { position, row } of page) {
          each(row);
          if (performance.now() - started > SLICE_MS) return { after: position, more: true };
        }
        return { after: page.at(-1)?.position ?? after, more: page.length === SLICE_WORKLOADS };
      }));
    }
  }

  return {
    /** `op` at the tenant's now, in one IMMEDIATE transaction. */
    atNow<T>(tenantId: string, op: (unit: TenantUnit) => T): T {
      return store.write(() => inUnit(tenantId, op));
    },

    /**
     * Like atNow, committed together with the other keyed writes of this event-loop turn (the
     * group commit); the promise settles after the COMMIT.
     */
    atNowTogether<T>(tenantId: string, op: (unit: TenantUnit) => T): Promise<T> {
      return store.writeTogether(() => inUnit(tenantId, op));
    },

    /**
     * Every unsettled workload of the tenant brought up to its now, as materialiseEveryWorkload
     * does, but a unit of work per slice of workloads, the event loop turning between them: each
     * workload is materialised (and its status changes announced) in one transaction, never half,
     * while other requests run between slices. Each slice reads its rows and the tenant's now
     * afresh, so a clock move, a reset or a restore in between leaves nothing stale to write (a
     * workload stored meanwhile may be left to the reads, which materialise what they read).
     * Settles once a slice has found no more.
     */
    async everyWorkloadInSlices(tenantId: string): Promise<void> {
      await inSlices(tenantId, (slice) => store.write(() => inUnit(tenantId, (unit) => slice((row) => unit.materialise(row)))));
    },

    /**
     * `op` in a unit whose tenant is up to now: every unsettled workload brought up to now in
     * slices first (everyWorkloadInSlices), so that op's unit, one transaction, has only what fell
     * due since to write before op reads the whole tenant.
     */
    async atNowUpToDate<T>(tenantId: string, op: (unit: TenantUnit) => T): Promise<T> {
      await this.everyWorkloadInSlices(tenantId);
      return this.atNow(tenantId, (unit) => {
        unit.materialiseEveryWorkload();
        return op(unit);
      });
    },

    /**
     * When each unsettled workload of the tenant ends (TenantUnit.end), worked out outside any
     * transaction, a slice at a time with the event loop turning between: simulating a run reads
     * its row and interventions and writes nothing, and what it finds is kept by their content,
     * so a unit asking later gets it at once unless an intervention has changed the run since.
     */
    async endsInSlices(tenantId: string): Promise<void> {
      await inSlices(tenantId, (slice) => slice((row) => materialiser.end(row)));
    },

    /**
     * Several tenants' operations in one transaction, each with its own unit: a scenario file is
     * applied to every tenant it names, or to none.
     */
    acrossTenants<T>(fn: (atNow: <U>(tenantId: string, op: (unit: TenantUnit) => U) => U) => T): T {
      return store.write(() => fn(inUnit));
    },
  };
}

export type UnitsOfWork = ReturnType<typeof createUnitsOfWork>;
