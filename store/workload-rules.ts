import type { Db } from './db.js';
import type { FaultSource } from './faults.js';

export interface WorkloadRuleRow {
  seq: number;
  id: string;
  tenantId: string;
  /** JSON of the rule's match, trigger and action, as the API took them. */
  match: string;
  at: string;
  action: string;
  source: FaultSource;
  /** Matching workloads admitted since the rule was made. */
  matched: number;
  createdAtMs: number;
}

export type BindingState = 'pending' | 'applied' | 'skipped';

export interface BindingRow {
  workloadId: string;
  ruleId: string;
  position: number;
  at: string;
  action: string;
  /** The client's reads of the workload's task events while the binding was pending. */
  reads: number;
  state: BindingState;
  settledAtMs: number | null;
  /** What could not apply, and why. */
  note: string | null;
}

/** A rule's bindings by state, and the first of them. */
export interface RuleBindings {
  counts: Record<BindingState, number>;
  workloads: BindingRow[];
}

type NewRule = Omit<WorkloadRuleRow, 'seq' | 'matched'>;

export const RULE_COLUMNS = 'seq, id, tenant_id AS tenantId, match, at, action, source, matched, created_at_ms AS createdAtMs';
const BINDING_COLUMNS = `workload_id AS workloadId, rule_id AS ruleId, position, at, action, reads, state,
  settled_at_ms AS settledAtMs, note`;

export function createWorkloadRuleStore(db: Db) {
  const insert = db.prepare(
    `INSERT INTO workload_rules (id, tenant_id, match, at, action, source, created_at_ms)
     VALUES (@id, @tenantId, @match, @at, @action, @source, @createdAtMs)`,
  );
  const get = db.prepare<[string, string], WorkloadRuleRow>(`SELECT ${RULE_COLUMNS} FROM workload_rules WHERE tenant_id = ? AND id = ?`);
  // A rule removed leaves what it applied, and ends its bindings still pending as skipped.
  const removed = (where: string) => ({
    skip: db.prepare(`UPDATE workload_rule_bindings SET state = 'skipped', settled_at_ms = @atMs, note = 'the rule was deleted'
      WHERE state = 'pending' AND rule_id IN (SELECT id FROM workload_rules WHERE ${where})`),
    remove: db.prepare(`DELETE FROM workload_rules WHERE ${where}`),
  });
  const removeOne = removed('tenant_id = @tenantId AND id = @id');
  const removeAll = removed('tenant_id = @tenantId');
  const removeSource = removed('tenant_id = @tenantId AND source = @source');
  const match = db.prepare('UPDATE workload_rules SET matched = matched + 1 WHERE seq = ? AND tenant_id = ?');
  const matched = db.prepare<[number], { matched: number }>('SELECT matched FROM workload_rules WHERE seq = ?');
  const bind = db.prepare(
    `INSERT INTO workload_rule_bindings (tenant_id, workload_id, rule_id, position, at, action)
     VALUES (@tenantId, @workloadId, @ruleId, @position, @at, @action)`,
  );
  const pending = db.prepare<[string], BindingRow>(
    `SELECT ${BINDING_COLUMNS} FROM workload_rule_bindings WHERE workload_id = ? AND state = 'pending' ORDER BY position`,
  );
  const pendingOfRule = db.prepare<[string], BindingRow>(
    `SELECT ${BINDING_COLUMNS} FROM workload_rule_bindings WHERE rule_id = ? AND state = 'pending' ORDER BY rowid`,
  );
  const read = db.prepare('UPDATE workload_rule_bindings SET reads = reads + 1 WHERE workload_id = ? AND rule_id = ?');
  const settle = db.prepare(
    "UPDATE workload_rule_bindings SET state = ?, settled_at_ms = ?, note = ? WHERE workload_id = ? AND rule_id = ? AND state = 'pending'",
  );
  const counts = db.prepare<[string], { state: BindingState; n: number }>(
    'SELECT state, count(*) AS n FROM workload_rule_bindings WHERE rule_id = ? GROUP BY state',
  );
  const byRule = db.prepare<[string, number], BindingRow>(
    `SELECT ${BINDING_COLUMNS} FROM workload_rule_bindings WHERE rule_id = ? ORDER BY rowid LIMIT ?`,
  );
  return {
    insert(row: NewRule): void {
      insert.run(row);
    },
    get(tenantId: string, id: string): WorkloadRuleRow | undefined {
      return get.get(tenantId, id);
    },
    /** Removes one rule at `atMs`; its pending bindings end as skipped. */
    delete(tenantId: string, id: string, atMs: number): boolean {
      removeOne.skip.run({ tenantId, id, atMs });
      return removeOne.remove.run({ tenantId, id }).changes > 0;
    },
    /** Removes the tenant's rules, or only those from one source, as delete does. */
    clear(tenantId: string, atMs: number, source?: FaultSource): number {
      const { skip, remove } = source ? removeSource : removeAll;
      const params = source ? { tenantId, source } : { tenantId };
      skip.run({ ...params, atMs });
      return remove.run(params).changes;
    },
    /** Counts one more matching workload for the rule; answers how many it has matched now. */
    countMatch(tenantId: string, seq: number): number {
      match.run(seq, tenantId);
      return matched.get(seq)!.matched;
    },
    bind(row: Omit<BindingRow, 'reads' | 'state' | 'settledAtMs' | 'note'> & { tenantId: string }): void {
      bind.run(row);
    },
    /** A workload's bindings still to apply, in binding order. */
    pending(workloadId: string): BindingRow[] {
      return pending.all(workloadId);
    },
    /** A rule's bindings still to apply, first bound first. */
    pendingOfRule(ruleId: string): BindingRow[] {
      return pendingOfRule.all(ruleId);
    },
    countRead(workloadId: string, ruleId: string): void {
      read.run(workloadId, ruleId);
    },
    settle(workloadId: string, ruleId: string, state: Exclude<BindingState, 'pending'>, atMs: number, note: string | null): void {
      settle.run(state, atMs, note, workloadId, ruleId);
    },
    /** How many workloads the rule bound, by state, and the first `limit` of them in binding order. */
    bindings(ruleId: string, limit: number): RuleBindings {
      const tally: Record<BindingState, number> = { pending: 0, applied: 0, skipped: 0 };
      for (const { state, n } of counts.all(ruleId)) tally[state] = n;
      return { counts: tally, workloads: byRule.all(ruleId, limit) };
    },
  };
}
