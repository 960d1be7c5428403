import type { Budget, Levers, RecipeOverride } from './admission.js';
import type { Db } from './db.js';
import { FAULT_COLUMNS, type FaultRow } from './faults.js';
import type { ClockRow } from './tenants.js';
import { tenantTables, type CacheKind } from './tenant-tables.js';
import { RULE_COLUMNS, type WorkloadRuleRow } from './workload-rules.js';

type Spec = { table: string; tenant: string; by: readonly string[] };

/**
 * What is cached, and the table each is read from (the registry's `cached`, store/tenant-tables.ts).
 * `tenant` is the column naming the row's tenant; `by`, the columns naming one entry among the
 * tenant's many (its name is then the kind, a space and their values joined by newlines, as
 * `idempotencyEntry` builds it). Every change to a row of these tables forgets the entry it feeds,
 * by the triggers made below: a store function that writes one needs nothing of its own, and none
 * can forget to. test/store/tenant-cache.test.ts fails when a kind has no case there or a store
 * function writing its table is not exercised.
 */
export const CACHED = Object.fromEntries(tenantTables.flatMap(([table, { owner, cached }]) =>
  cached ? [[cached.kind, { table, tenant: owner.by === 'self' ? 'id' : 'tenant_id', by: cached.by ?? [] }]] : [],
)) as Readonly<Record<CacheKind, Spec>>;

export type CachedRows = Exclude<CacheKind, 'idempotency'> | ReturnType<typeof idempotencyEntry>;

export const idempotencyEntry = (scope: string, key: string) => `idempotency ${scope}\n${key}` as const;

export const NOT_CACHED = Symbol('not cached');

/** Tenants remembered at most; a test run makes a tenant per key, so the map must not grow forever. */
const MAX_TENANTS = 10_000;
/** Entries per tenant at most: one per replayed idempotency key beyond the fixed kinds. */
const MAX_ENTRIES = 1_000;

/** Plain objects and arrays, frozen all the way down: a cached value is shared by every reader. */
function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

/**
 * The TEMP triggers of one kind's table. `row` (NEW or OLD) names the entry a row feeds; an UPDATE
 * forgets the one it fed, and one that changes the naming columns also the one it feeds now.
 */
function triggers(kind: CacheKind): string {
  const { table, tenant, by } = CACHED[kind];
  const entry = (row: string) => (by.length ? `'${kind} ' || ${by.map((c) => `${row}.${c}`).join(' || char(10) || ')}` : `'${kind}'`);
  const forget = (name: string, change: string, row: string) =>
    `CREATE TEMP TRIGGER tenant_cache_${kind}_${name} AFTER ${change} ON main.${table}
       BEGIN SELECT tenant_cache_forget(${row}.${tenant}, ${entry(row)}); END;`;
  return [
    forget('insert', 'INSERT', 'NEW'),
    forget('update', 'UPDATE', 'OLD'),
    forget('move', `UPDATE OF ${[tenant, ...by].join(', ')}`, 'NEW'),
    forget('delete', 'DELETE', 'OLD'),
  ].join('\n');
}

/**
 * Reading a tenant's clock, live fault rules and recipe overrides cost a statement each, with
 * its file locks, on every request (bench/, profile of GET /v1/rl-recipes), yet tests change them
 * a few times per run; a replayed launch spent most of its store time in its one read of the
 * idempotency record. So they are kept in memory, under three rules: every change to one of these
 * rows forgets its entry within the statement that makes it, before that statement returns; a
 * value read inside a transaction is kept only if that transaction had not changed the entry's
 * rows before the read (the value is then the committed row, which the transaction may still
 * change, forgetting it, or roll back, leaving it as committed); and a missing row (undefined) is
 * never kept. An entry present is therefore the committed row, which no open transaction has
 * written, so transactions read it too: a unit of work reads the tenant's clock, levers and
 * overrides inside its own, and the second launch of a tenant reads none of them from the file.
 *
 * The forgetting is done by SQLite: a TEMP trigger per table and kind of change calls back into
 * this map, so it covers whichever statement on this connection makes the change (a store function,
 * a cascade, a test's own SQL) and no store function carries a call that could be left out. AFTER, not BEFORE: an
 * INSERT OR IGNORE that inserts nothing (a new key of a known tenant) then costs nothing, and no
 * JavaScript runs between a row's change and its trigger. The cost is one call per changed row
 * of these tables; reads and every other table are untouched. TEMP triggers live with the
 * connection, not in the file: a tool opening the file without this function is not affected.
 * The same call notes, while a transaction is open, which entries it changed; the store drops the
 * notes before each outermost transaction it opens (a note left by another transaction only keeps
 * a value out of memory).
 *
 * The server is the only writer of its file (one process over one SQLite file), so no other
 * change can go unseen. Cached values are shared, so they are frozen: a caller that tried to
 * change one would throw rather than change every later reader's answer.
 */
export function createTenantCache(db: Db) {
  const tenants = new Map<string, Map<CachedRows, unknown>>();
  /** Entries the open transaction has changed, as `tenant\nrows`: what it reads of them is its own. */
  const changedInTransaction = new Set<string>();
  db.function('tenant_cache_forget', (tenantId: string, rows: CachedRows) => {
    tenants.get(tenantId)?.delete(rows);
    if (db.inTransaction) changedInTransaction.add(`${tenantId}\n${rows}`);
  });
  db.exec((Object.keys(CACHED) as CacheKind[]).map(triggers).join('\n'));
  /** What `read` would answer from memory alone, without a statement; NOT_CACHED when only the file knows. */
  function peek<T>(tenantId: string, rows: CachedRows): T | typeof NOT_CACHED {
    const entries = tenants.get(tenantId);
    return entries?.has(rows) ? (entries.get(rows) as T) : NOT_CACHED;
  }
  return {
    peek,

    read<T>(tenantId: string, rows: CachedRows, load: () => T): T {
      const known = peek<T>(tenantId, rows);
      if (known !== NOT_CACHED) return known;
      let entries = tenants.get(tenantId);
      const value = deepFreeze(load());
      if (value === undefined || (db.inTransaction && changedInTransaction.has(`${tenantId}\n${rows}`))) return value;
      if (!entries || entries.size >= MAX_ENTRIES) {
        if (tenants.size >= MAX_TENANTS) tenants.clear();
        tenants.set(tenantId, (entries = new Map()));
      }
      entries.set(rows, value);
      return value;
    },

    /** Called with no transaction open, before one begins: what the last one changed no longer matters. */
    outsideTransaction(): void {
      if (changedInTransaction.size) changedInTransaction.clear();
    },
  };
}

export type TenantCache = ReturnType<typeof createTenantCache>;

const DEFAULT_LEVERS: Levers = { reviewExpiry: false, unrecoverableErrorRate: null };

/** The tenant's row as the cache keeps it: its clock, and the hex key its cursors are signed with (null: older than these keys). */
type TenantRow = ClockRow & { cursorKey: string | null };
type OverrideRow = { recipe_id: string; available: number; unavailable_reason: string | null };
type LeverRow = { review_expiry: number; unrecoverable_error_rate: number | null };

/**
 * What a request reads of its tenant's settings, each kept in the cache above: the clock row,
 * the live fault rules, the recipe overrides, the budget, the admission levers and the workload
 * rules. Their reads are here, together, and their writes with each table's store (the triggers
 * forget what a write changes): so a request whose settings memory holds runs no table store's
 * code to learn them (docs/development.md, the launch path).
 */
export function createTenantSettings(db: Db, cache: TenantCache) {
  const tenant = db.prepare<[string], TenantRow>(
    `SELECT clock_mode AS mode, clock_scale AS scale, clock_anchor_wall_ms AS anchorWallMs,
            clock_anchor_virtual_ms AS anchorVirtualMs, cursor_key AS cursorKey
     FROM tenants WHERE id = ?`,
  );
  const liveFaults = db.prepare<[string], FaultRow>(`SELECT ${FAULT_COLUMNS} FROM faults WHERE tenant_id = ? AND applied < times ORDER BY seq`);
  const overrides = db.prepare<[string], OverrideRow>('SELECT recipe_id, available, unavailable_reason FROM recipe_overrides WHERE tenant_id = ?');
  const budget = db.prepare<[string], Budget>(
    'SELECT monthly_spend_cap_usd AS monthlySpendCapUsd, month_to_date_usd AS monthToDateUsd FROM budgets WHERE tenant_id = ?',
  );
  const levers = db.prepare<[string], LeverRow>('SELECT review_expiry, unrecoverable_error_rate FROM tenant_levers WHERE tenant_id = ?');
  const rules = db.prepare<[string], WorkloadRuleRow>(`SELECT ${RULE_COLUMNS} FROM workload_rules WHERE tenant_id = ? ORDER BY seq`);
  const clock = (tenantId: string): TenantRow =>
    cache.read(tenantId, 'clock', () => {
      const row = tenant.get(tenantId);
      if (!row) throw new Error(`unknown tenant ${tenantId}`);
      return row;
    });
  return {
    clock,
    /** The hex key the tenant's cursors are signed with; null for a tenant older than these keys. */
    cursorKey: (tenantId: string): string | null => clock(tenantId).cursorKey,
    /** Fault rules with applications left, oldest first. */
    liveFaults(tenantId: string): readonly FaultRow[] {
      return cache.read(tenantId, 'faults', () => liveFaults.all(tenantId));
    },
    /** The tenant's overrides by recipe id. */
    overrides(tenantId: string): Readonly<Record<string, RecipeOverride | undefined>> {
      return cache.read(tenantId, 'overrides', () => {
        const byRecipe: Record<string, RecipeOverride> = Object.create(null);
        for (const row of overrides.all(tenantId)) byRecipe[row.recipe_id] = { available: row.available === 1, unavailableReason: row.unavailable_reason };
        return byRecipe;
      });
    },
    budget(tenantId: string): Budget | undefined {
      // null stands for "no budget", which the cache keeps, unlike a miss (undefined).
      return cache.read(tenantId, 'budget', () => budget.get(tenantId) ?? null) ?? undefined;
    },
    levers(tenantId: string): Levers {
      return cache.read(tenantId, 'levers', () => {
        const row = levers.get(tenantId);
        return row ? { reviewExpiry: row.review_expiry === 1, unrecoverableErrorRate: row.unrecoverable_error_rate } : DEFAULT_LEVERS;
      });
    },
    /**
     * Every workload rule of the tenant, oldest first; read at every admission and materialisation.
     * A tenant without rules has no binding pending either (removing a rule ends them).
     */
    workloadRules(tenantId: string): readonly WorkloadRuleRow[] {
      return cache.read(tenantId, 'workload_rules', () => rules.all(tenantId));
    },
  };
}
