import type { z } from 'zod';
import type { FaultAction, FaultRule } from '../../../openapi/mock.js';
import type { FaultRow, FaultSource } from '../../../store/faults.js';
import type { DomainContext } from '../context.js';
import { newFaultId } from '../ids.js';
import type { TenantUnit } from '../unit-of-work.js';

export type FaultRuleInput = z.output<typeof FaultRule>;
export type FaultActionInput = z.output<typeof FaultAction>;

/** What the fault hook did to a request, for the journal. */
export interface AppliedFault {
  id: string;
  type: FaultActionInput['type'];
}

const compiled = new Map<string, RegExp>();

/**
 * `{name}` stands for one segment, a trailing `*` for any rest; everything else is literal. The
 * request journal's path filter and matcher match by it too.
 */
export function pathRegExp(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (re) return re;
  const prefix = pattern.endsWith('*');
  const body = (prefix ? pattern.slice(0, -1) : pattern)
    .split('/')
    .map((segment) => (/^\{\w+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  re = new RegExp(`^${body}${prefix ? '.*' : ''}$`);
  if (compiled.size >= 1000) compiled.clear();
  compiled.set(pattern, re);
  return re;
}

function ruleMatches(rule: Pick<FaultRow, 'method' | 'path'>, method: string, path: string): boolean {
  return (rule.method === null || rule.method === method) && pathRegExp(rule.path).test(path);
}

/** Stores a rule (POST /_mock/faults, or a scenario file's entry) in the unit's transaction, made at its now. */
export function addFault(unit: TenantUnit, rule: FaultRuleInput, source: FaultSource): FaultRow {
  const { tables, tenantId } = unit;
  const id = newFaultId();
  tables.faults.insert({
    id,
    tenantId,
    method: rule.method ?? null,
    path: rule.path,
    times: rule.times,
    after: rule.after,
    action: JSON.stringify(rule.action),
    source,
    createdAtMs: unit.nowMs,
  });
  return tables.faults.get(tenantId, id)!;
}

/**
 * Counts one request against the tenant's rules and answers the rule to apply, if any. Every live
 * rule that matches counts the request in `seen`; of those that have already let `after` requests
 * through, the oldest applies and counts it in `applied`. One synchronous transaction, so the
 * counters are exact however many requests arrive at once, and they survive restarts.
 */
export function takeFault(deps: Pick<DomainContext, 'committed' | 'units'>, tenantId: string, method: string, url: string): FaultRow | undefined {
  // Nearly every request meets no rule. A plain read says so without the write transaction (and
  // its lock and commit) that counting needs; nothing else runs between this read and the
  // transaction below, so the transaction still decides on what it reads itself. Most tenants
  // have no rule at all: then not even the path is cut out of the URL.
  const live = deps.committed.faults.live(tenantId);
  if (live.length === 0) return undefined;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (!live.some((rule) => ruleMatches(rule, method, path))) return undefined;
  return deps.units.atNow(tenantId, ({ tables }) => {
    const matching = tables.faults.live(tenantId).filter((rule) => ruleMatches(rule, method, path));
    if (matching.length === 0) return undefined;
    const chosen = matching.find((rule) => rule.seen >= rule.after);
    tables.faults.count(tenantId, matching.map((rule) => rule.seq), chosen?.seq);
    return chosen;
  });
}

