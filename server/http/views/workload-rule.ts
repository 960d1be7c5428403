import type { z } from 'zod';
import type { WorkloadRuleView } from '../../../openapi/workload-rules.js';
import type { WorkloadRuleState } from '../../domain/control/workload-rules.js';
import { isoTime } from '../../domain/clock.js';

type View = z.infer<typeof WorkloadRuleView>;

export function presentWorkloadRule({ rule, bindings }: WorkloadRuleState): View {
  const { counts, workloads } = bindings;
  return {
    id: rule.id,
    match: JSON.parse(rule.match) as View['match'],
    at: JSON.parse(rule.at) as View['at'],
    action: JSON.parse(rule.action) as View['action'],
    source: rule.source,
    created_at: isoTime(rule.createdAtMs),
    matched: rule.matched,
    bound: counts.pending + counts.applied + counts.skipped,
    pending: counts.pending,
    applied: counts.applied,
    skipped: counts.skipped,
    workloads: workloads.map((b) => ({
      workload_id: b.workloadId,
      state: b.state,
      settled_at: b.settledAtMs === null ? null : isoTime(b.settledAtMs),
      note: b.note,
    })),
  };
}
