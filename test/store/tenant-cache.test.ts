import t from '../helpers/tap.js';
import Database from 'better-sqlite3';
import { openStore, type Store } from '../../store/index.js';
import { snapshotColumns } from '../../openapi/snapshot.js';
import { SNAPSHOT_TABLES, type SnapshotTable, type SnapshotTables, type SnapshotValues } from '../../store/snapshot.js';
import { CACHED } from '../../store/tenant-cache.js';
import { tempDbPath, type Teardown } from '../helpers/server.js';

// Every statement prepared in this file's process, and those run, each by where it was prepared
// and its SQL (two modules may prepare the same text): the completeness check below compares the
// writes of cached tables that the store prepares with those the writers listed here run.
// Wrapping prepare sees them without a hook in the store.
const prepared = new Map<string, string>();
const ran = new Set<string>();
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (this: Database.Database, sql: string) {
  const statement = prepare.call(this, sql) as Database.Statement;
  // Line 0 of the stack is its message, 1 this function, 2 the code that prepared the statement.
  const site = `${new Error().stack!.split('\n')[2].trim()}: ${sql}`;
  prepared.set(site, sql);
  const run = statement.run;
  statement.run = function (this: Database.Statement, ...args: unknown[]) {
    ran.add(site);
    return run.apply(this, args);
  } as typeof run;
  return statement;
} as typeof prepare;

type Kind = keyof typeof CACHED;
const TN = 'tn_cache';
const KEY = { hash: 'hash_cache', id: 'key_cache' };

interface Writer {
  /** Rows the write changes, made before the cached read; the kind's own setup unless given. */
  setup?: (s: Store) => void;
  write: (s: Store) => void;
}
interface Case {
  read: (s: Store) => unknown;
  setup: (s: Store) => void;
  /** Every store function that writes the kind's table, each with a write that changes what `read` answers. */
  writers: Record<string, Writer>;
}

const register = (s: Store) => s.tenants.register(KEY.hash, KEY.id, TN, 1_000);
const fault = (s: Store, id: string, source: 'api' | 'scenario') =>
  s.faults.insert({ id, tenantId: TN, method: null, path: '/v1/rl-runs', times: 2, after: 0, action: '{}', source, createdAtMs: 1 });
const rule = (s: Store, id: string, source: 'api' | 'scenario') =>
  s.workloadRules.insert({ id, tenantId: TN, match: '{}', at: '{"reads":1}', action: '{"type":"fail"}', source, createdAtMs: 1 });
const record = (workloadId: string) => ({ fingerprint: 'f', workloadId, createdAtMs: 1, expiresAtMs: 2 });
const reset = { write: (s: Store) => s.reset.deleteTenantData(TN) };
/** A restore's insert of one row (each table's statement is its own, prepared at one line). */
const restored = (table: keyof SnapshotTables, row: SnapshotTables[keyof SnapshotTables][number]) => ({
  write: (s: Store) => s.snapshot.insert(TN, { ...snapshotColumns(), [table]: Object.keys(row) }, {
    ...(Object.fromEntries(Object.keys(SNAPSHOT_TABLES).map((name) => [name, []])) as unknown as Record<SnapshotTable, SnapshotValues[]>),
    [table]: [Object.values(row)],
  }),
});

const CASES: Record<Kind, Case> = {
  clock: {
    read: (s) => s.cached.clock(TN),
    setup: register,
    writers: {
      'tenants.setClock': { write: (s) => s.tenants.setClock(TN, { mode: 'manual', scale: null, anchorWallMs: 5, anchorVirtualMs: 7 }) },
      'tenants.setCursorKey': { write: (s) => s.tenants.setCursorKey(TN, 'ab'.repeat(32)) },
      // Makes the tenant row: an unknown tenant's clock throws, and that is not kept either.
      'tenants.register': { setup: () => {}, write: register },
    },
  },
  faults: {
    read: (s) => s.cached.liveFaults(TN),
    setup: (s) => {
      register(s);
      fault(s, 'flt_api', 'api');
      fault(s, 'flt_scenario', 'scenario');
    },
    writers: {
      'faults.insert': { write: (s) => fault(s, 'flt_new', 'api') },
      'faults.delete': { write: (s) => s.faults.delete(TN, 'flt_api') },
      'faults.clear': { write: (s) => s.faults.clear(TN) },
      // One statement per table, prepared at one line: a restore's insert of any cached table.
      'snapshot.insert': restored('faults', { seq: 99, id: 'flt_restored', method: null, path: '/v1/me', times: 1, after_count: 0, seen: 0, applied: 0, action: '{}', source: 'api', created_at_ms: 1 }),
      'faults.clear of one source': { write: (s) => s.faults.clear(TN, 'scenario') },
      'faults.count, seen only': { write: (s) => s.faults.count(TN, [s.faults.get(TN, 'flt_api')!.seq], undefined) },
      'faults.count, applied': { write: (s) => s.faults.count(TN, [], s.faults.get(TN, 'flt_api')!.seq) },
      'reset.deleteTenantData': reset,
    },
  },
  workload_rules: {
    read: (s) => s.cached.workloadRules(TN),
    setup: (s) => {
      register(s);
      rule(s, 'wr_api', 'api');
      rule(s, 'wr_scenario', 'scenario');
    },
    writers: {
      'workloadRules.insert': { write: (s) => rule(s, 'wr_new', 'api') },
      'workloadRules.delete': { write: (s) => s.workloadRules.delete(TN, 'wr_api', 2) },
      'workloadRules.clear': { write: (s) => s.workloadRules.clear(TN, 2) },
      'workloadRules.clear of one source': { write: (s) => s.workloadRules.clear(TN, 2, 'scenario') },
      'workloadRules.countMatch': { write: (s) => s.workloadRules.countMatch(TN, s.workloadRules.get(TN, 'wr_api')!.seq) },
      'snapshot.insert': restored('workload_rules', { seq: 9, id: 'wr_restored', match: '{}', at: '{}', action: '{}', source: 'api', matched: 0, created_at_ms: 1 }),
      'reset.deleteTenantData': reset,
    },
  },
  overrides: {
    read: (s) => s.cached.overrides(TN),
    setup: (s) => {
      register(s);
      s.admission.setOverride(TN, 'rcp_a', { available: true, unavailableReason: null });
    },
    writers: {
      'admission.setOverride': { write: (s) => s.admission.setOverride(TN, 'rcp_a', { available: false, unavailableReason: 'no' }) },
      'snapshot.insert': restored('recipe_overrides', { recipe_id: 'rcp_b', available: 0, unavailable_reason: 'restored' }),
      'reset.deleteTenantData': reset,
    },
  },
  budget: {
    read: (s) => s.cached.budget(TN),
    setup: (s) => {
      register(s);
      s.admission.setBudget(TN, { monthlySpendCapUsd: 100, monthToDateUsd: 0 });
    },
    writers: {
      'admission.setBudget': { write: (s) => s.admission.setBudget(TN, { monthlySpendCapUsd: 200, monthToDateUsd: 1 }) },
      'admission.deleteBudget': { write: (s) => s.admission.deleteBudget(TN) },
      'snapshot.insert': { setup: register, ...restored('budgets', { monthly_spend_cap_usd: 7, month_to_date_usd: 1 }) },
      'reset.deleteTenantData': reset,
    },
  },
  levers: {
    read: (s) => s.cached.levers(TN),
    setup: (s) => {
      register(s);
      s.levers.setLevers(TN, { reviewExpiry: true, unrecoverableErrorRate: 0.5 });
    },
    writers: {
      'levers.setLevers': { write: (s) => s.levers.setLevers(TN, { reviewExpiry: false, unrecoverableErrorRate: null }) },
      'snapshot.insert': { setup: register, ...restored('tenant_levers', { review_expiry: 1, unrecoverable_error_rate: 0.5 }) },
      'reset.deleteTenantData': reset,
    },
  },
  idempotency: {
    read: (s) => s.idempotency.find(TN, 'launch', 'k1'),
    setup: (s) => {
      register(s);
      s.idempotency.save(TN, 'launch', 'k1', record('first'));
    },
    writers: {
      'idempotency.save': { write: (s) => s.idempotency.save(TN, 'launch', 'k1', record('second')) },
      'snapshot.insert': { setup: register, ...restored('idempotency_keys', { scope: 'launch', key: 'k1', fingerprint: 'f', workload_id: null, created_at_ms: 1, expires_at_ms: 2 }) },
      'reset.deleteTenantData': reset,
    },
  },
};

/** A read's answer, or the message it threw (the clock of an unknown tenant). */
const attempt = (read: () => unknown) => {
  try {
    return { value: read() };
  } catch (err) {
    return { threw: (err as Error).message };
  }
};

/** What is committed: read by a second connection, whose cache is empty. */
function committed(path: string, read: (s: Store) => unknown) {
  const other = openStore(path);
  try {
    return attempt(() => read(other));
  } finally {
    other.close();
  }
}

/**
 * A store over a fresh file with `setup`'s rows, and `read`'s answer, which the store now keeps
 * (`cached` says whether the second read was the very same value: not for a read that threw).
 */
function cachedStore(t: Teardown, read: (s: Store) => unknown, setup: (s: Store) => void) {
  const path = tempDbPath(t);
  const store = openStore(path);
  t.teardown(() => store.close());
  setup(store);
  const before = attempt(() => read(store));
  return { path, store, before, cached: 'value' in before && read(store) === before.value };
}

for (const [kind, c] of Object.entries(CASES) as [Kind, Case][]) {
  for (const [name, w] of Object.entries(c.writers)) {
    t.test(`${kind}: ${name} is read back after its commit`, async (t) => {
      const { path, store, before, cached } = cachedStore(t, c.read, w.setup ?? c.setup);
      t.equal(cached, 'value' in before, 'a value read is served from the cache');
      store.write(() => w.write(store));
      const after = committed(path, c.read);
      t.notSame(after, before, 'the write changed the committed row');
      t.same(attempt(() => c.read(store)), after, 'the next read answers the committed row');
    });

    t.test(`${kind}: ${name} rolled back leaves the committed row served`, async (t) => {
      const { path, store, before, cached } = cachedStore(t, c.read, w.setup ?? c.setup);
      t.equal(cached, 'value' in before, 'a value read is served from the cache');
      t.throws(() =>
        store.write(() => {
          w.write(store);
          t.notSame(attempt(() => c.read(store)), before, 'inside, the transaction reads its own write');
          throw new Error('roll back');
        }),
      );
      t.same(attempt(() => c.read(store)), before, 'after the rollback, the row before it');
      t.same(committed(path, c.read), before, 'which is what is committed');
    });
  }
}

/** A store over a fresh file with `setup`'s rows and nothing read yet. */
function freshStore(t: Teardown, setup: (s: Store) => void) {
  const path = tempDbPath(t);
  const store = openStore(path);
  t.teardown(() => store.close());
  setup(store);
  return { path, store };
}

for (const [kind, c] of Object.entries(CASES) as [Kind, Case][]) {
  t.test(`${kind}: read inside a transaction that has not changed it, the committed row is kept`, async (t) => {
    const { path, store } = freshStore(t, c.setup);
    const inside = attempt(() => store.write(() => c.read(store)));
    if (!('value' in inside) || inside.value === undefined) return t.pass('nothing is kept for a read that throws or finds nothing');
    t.equal(c.read(store), inside.value, 'the read after the commit is the very value read inside');
    t.same(inside, committed(path, c.read), 'which is the committed row');
  });

  for (const [name, w] of Object.entries(c.writers)) {
    t.test(`${kind}: ${name} after a read in the same transaction forgets what was read`, async (t) => {
      const { path, store } = freshStore(t, w.setup ?? c.setup);
      const inside = store.write(() => {
        const read = attempt(() => c.read(store));
        w.write(store);
        return read;
      });
      const after = committed(path, c.read);
      t.notSame(after, inside, 'the write changed the committed row');
      t.same(attempt(() => c.read(store)), after, 'the next read answers the committed row');
    });
  }
}

/** Tries to change `value` at its first level and one level down; answers the paths it could change. */
function mutable(value: unknown, path = 'value', depth = 0): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const changed: string[] = [];
  try {
    (value as Record<string, unknown>).__changed = true;
    if ((value as Record<string, unknown>).__changed) changed.push(path);
  } catch {
    // Frozen: the assignment throws in strict code, which is what a cached value must do.
  }
  if (depth < 2) for (const [k, inner] of Object.entries(value)) changed.push(...mutable(inner, `${path}.${k}`, depth + 1));
  return changed;
}

for (const [kind, c] of Object.entries(CASES) as [Kind, Case][]) {
  t.test(`${kind}: a cached value cannot be changed by a reader`, async (t) => {
    const { store, before } = cachedStore(t, c.read, c.setup);
    if (!('value' in before)) return t.pass('nothing is cached for a read that throws');
    t.same(mutable(c.read(store)), [], 'frozen, with everything in it');
    t.same(attempt(() => c.read(store)), before, 'and every later reader gets what was read');
  });
}

t.test('a write of one group commit that throws leaves the committed row served', async (t) => {
  const { store, before, cached } = cachedStore(t, CASES.budget.read, CASES.budget.setup);
  t.ok(cached);
  const outcomes = await Promise.allSettled([
    store.writeTogether(() => {
      store.admission.setBudget(TN, { monthlySpendCapUsd: 300, monthToDateUsd: 0 });
      throw new Error('refused');
    }),
    store.writeTogether(() => store.faults.clear(TN)),
  ]);
  t.same(outcomes.map((o) => o.status), ['rejected', 'fulfilled']);
  t.same(attempt(() => CASES.budget.read(store)), before, 'the committed budget');
});

t.test('a change by any statement on the connection is seen, not only by store functions', async (t) => {
  const { store, cached } = cachedStore(t, CASES.budget.read, CASES.budget.setup);
  t.ok(cached);
  store.db.prepare('UPDATE budgets SET month_to_date_usd = 42 WHERE tenant_id = ?').run(TN);
  t.equal(store.cached.budget(TN)?.monthToDateUsd, 42);
});

t.test('a row moved to another tenant is seen by both', async (t) => {
  const { store } = cachedStore(t, CASES.faults.read, CASES.faults.setup);
  store.tenants.register('hash_other', 'key_other', 'tn_other', 1_000);
  t.same(store.cached.liveFaults('tn_other'), [], 'kept: the other tenant has no rule');
  store.db.prepare("UPDATE faults SET tenant_id = 'tn_other' WHERE id = 'flt_api'").run();
  t.same(store.cached.liveFaults('tn_other').map((rule) => rule.id), ['flt_api']);
  t.same(store.cached.liveFaults(TN).map((rule) => rule.id), ['flt_scenario']);
});

// Registered after the tests above, so it runs once they have all run their writers.
t.test('every kind is covered, and every write of a cached table the store prepares is run by a writer above', async (t) => {
  t.same(Object.keys(CASES).sort(), Object.keys(CACHED).sort(), 'a case per cached kind');
  const cachedTables = new Set<string>(Object.values(CACHED).map((spec) => spec.table));
  const writes = /^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+(\w+)/i;
  const writesCached = [...prepared]
    .filter(([site, sql]) => !site.includes('tenant-cache.test') && cachedTables.has(writes.exec(sql)?.[1] ?? ''))
    .map(([site]) => site);
  // tenants 3, idempotency 1, admission 3, faults 6, workload rules 5, levers 1, reset's DELETE of each of the 6 tables, and the
  // snapshot's restore INSERT into each.
  t.equal(writesCached.length, 31, 'the writes of the cached tables the store prepares');
  t.same(writesCached.filter((site) => !ran.has(site)), [], 'none is left without a writer in CASES');
});
