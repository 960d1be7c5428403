import { setImmediate } from 'node:timers/promises';
import type { Store } from '../../store/index.js';
import type { ResetCounts } from '../../store/reset.js';
import type { HeldSubstitutes, SnapshotTable, SnapshotValues } from '../../store/snapshot.js';
import type { WorkloadRow } from '../../store/workloads.js';
import type { VirtualClock } from './clock.js';
import type { ClockMode, ClockView } from './clock-view.js';
import { notFound } from './errors.js';
import { serverIdPattern } from './ids.js';
import { COMMITTED_READS, NOT_TABLES, NOT_TENANT_ROWS, type CommittedReads, type JournalPort, type MoveKeys, type RegisterKey, type SnapshotPort, type Tables, type TenantUnit, type UnitsOfWork } from './unit.js';
import { enqueueStatusChanges } from './webhooks/outbox.js';
import type { Materialised, Materialiser } from './workloads/materialise.js';
import { applyRule, dueRule } from './workloads/rules.js';
import type { RunContext, RunEnd } from './workloads/run.js';

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

/** CommittedReads picked from the store by name: the domain can call no other method of it. */
function committedReads(store: Store): CommittedReads {
  const reads = Object.entries(COMMITTED_READS).map(([table, names]) => [table, pick(store[table as keyof Store] as Record<string, unknown>, ...names)]);
  return { ...Object.fromEntries(reads), cached: store.cached } as CommittedReads;
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
 * The TenantUnit the seam below opens. It holds the Store beside the tables it hands out, for what
 * they leave out: a tenant's reset and a snapshot's rows.
 */
class StoreUnit implements TenantUnit {
  private tenantMaterialised = false;
  private now: number;
  /** What applying a workload rule needs besides this unit. */
  private readonly rules: { materialiser: Materialiser };

  constructor(
    readonly tenantId: string,
    private readonly store: Store,
    readonly tables: Tables,
    private readonly clock: VirtualClock,
    private readonly materialiser: Materialiser,
  ) {
    this.now = clock.nowMs(tenantId);
    this.rules = { materialiser };
  }

  get nowMs(): number {
    return this.now;
  }

  workload(id: string): WorkloadRow {
    const row = WORKLOAD_ID_PATTERN.test(id) ? this.tables.workloads.get(this.tenantId, id) : undefined;
    if (!row) throw notFound(`workload ${id}`);
    return this.materialise(row);
  }

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

  withDueRulesApplied(row: WorkloadRow): WorkloadRow {
    const due = dueRule(this, row);
    return due ? this.materialiseFrom(row, due) : row;
  }

  materialiseEveryWorkload(): void {
    if (this.tenantMaterialised) return;
    for (const row of this.tables.workloads.unsettled(this.tenantId)) this.materialise(row);
    this.tenantMaterialised = true;
  }

  run(row: WorkloadRow): RunContext {
    return this.materialiser.context(row);
  }

  end(row: WorkloadRow): RunEnd {
    return this.materialiser.end(row);
  }

  intervene(row: WorkloadRow, kind: string, args: object = {}): WorkloadRow {
    return this.interveneAfter(this.materialise(row), this.now, kind, args);
  }

  interveneAfter(current: WorkloadRow, afterMs: number, kind: string, args: object): WorkloadRow {
    const atMs = Math.max(afterMs, current.materialisedToMs) + 1;
    this.tables.runtime.addIntervention(current.id, atMs, kind, args);
    return this.announce(this.materialiser.materialise(this, current, atMs));
  }

  setClock(mode: ClockMode, scale?: number): ClockView {
    return this.moved(this.clock.set(this, mode, scale));
  }

  advanceClock(seconds: number): ClockView {
    return this.moved(this.clock.advance(this, seconds));
  }

  resetClock(): ClockView {
    return this.moved(this.clock.resetToDefaults(this));
  }

  restoreClock(mode: ClockMode, scale: number, nowMs: number): ClockView {
    return this.moved(this.clock.restore(this, mode, scale, nowMs));
  }

  deleteTenantData(): ResetCounts {
    return this.store.reset.deleteTenantData(this.tenantId);
  }

  insertSnapshot(
    columns: Record<SnapshotTable, readonly string[]>,
    rows: Record<SnapshotTable, Iterable<SnapshotValues>>,
    held?: { id: number; substitutes: HeldSubstitutes },
  ): Record<SnapshotTable, number> {
    return this.store.snapshot.insert(this.tenantId, columns, rows, held);
  }

  holdSnapshot(columns: Record<SnapshotTable, readonly string[]>, rows: Record<SnapshotTable, Iterable<SnapshotValues>>): number {
    return this.store.snapshot.hold(columns, rows);
  }

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

/** The seam over a store: its units share one copy of the tables, and one flag keeps them from nesting. */
export function createUnitsOfWork(deps: { store: Store; clock: VirtualClock; materialiser: Materialiser }): UnitsOfWork {
  const { store, clock, materialiser } = deps;
  const tables = tablesOf(store);
  let open = false;

  function inUnit<T>(tenantId: string, op: (unit: TenantUnit) => T): T {
    if (open) throw new Error('a tenant unit of work was opened inside another; pass the open unit down instead');
    open = true;
    try {
      return op(new StoreUnit(tenantId, store, tables, clock, materialiser));
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
    atNow<T>(tenantId: string, op: (unit: TenantUnit) => T): T {
      return store.write(() => inUnit(tenantId, op));
    },

    atNowTogether<T>(tenantId: string, op: (unit: TenantUnit) => T): Promise<T> {
      return store.writeTogether(() => inUnit(tenantId, op));
    },

    async everyWorkloadInSlices(tenantId: string): Promise<void> {
      await inSlices(tenantId, (slice) => store.write(() => inUnit(tenantId, (unit) => slice((row) => unit.materialise(row)))));
    },

    async atNowUpToDate<T>(tenantId: string, op: (unit: TenantUnit) => T): Promise<T> {
      await this.everyWorkloadInSlices(tenantId);
      return this.atNow(tenantId, (unit) => {
        unit.materialiseEveryWorkload();
        return op(unit);
      });
    },

    async endsInSlices(tenantId: string): Promise<void> {
      await inSlices(tenantId, (slice) => slice((row) => materialiser.end(row)));
    },

    acrossTenants<T>(fn: (atNow: <U>(tenantId: string, op: (unit: TenantUnit) => U) => U) => T): T {
      return store.write(() => fn(inUnit));
    },
  };
}
