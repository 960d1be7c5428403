import type { z } from 'zod';
import type { WorkloadPayload } from '../../../openapi/workloads.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { stateAt } from '../../simulator/index.js';
import { isTerminal, WORKLOAD_STATUSES } from '../../simulator/types.js';
import { checkWorkloadAssets } from '../assets/workloads.js';
import { canonicalSha256 } from '../canonical.js';
import type { DomainContext } from '../context.js';
import { ApiError } from '../errors.js';
import { admitCustomWorkload, checkSubmission } from '../launches/custom-runs.js';
import { admitOnce } from '../launches/idempotency.js';
import type { RunContext } from './materialise.js';
import { currentWorkload } from './rows.js';

type Payload = z.output<typeof WorkloadPayload>;

const ACTIVE = WORKLOAD_STATUSES.filter((s) => !isTerminal(s));

/** A comma list of statuses, `active` or `terminal`; unknown tokens are ignored. */
function statusFilter(raw: string | undefined): string[] {
  if (!raw) return [];
  const wanted = new Set<string>();
  for (const token of raw.split(',').map((t) => t.trim())) {
    if (token === 'active') ACTIVE.forEach((s) => wanted.add(s));
    else if (token === 'terminal') WORKLOAD_STATUSES.filter(isTerminal).forEach((s) => wanted.add(s));
    else if ((WORKLOAD_STATUSES as readonly string[]).includes(token)) wanted.add(token);
  }
  // Only unknown tokens: nothing can match them.
  return wanted.size ? [...wanted] : ['__none__'];
}

export interface ListQuery {
  limit?: number;
  offset?: number;
  status?: string;
  scope?: 'mine' | 'team';
}

/** A listed workload as of its materialisation: what the list view needs beyond the row. */
export interface ListedWorkload {
  row: WorkloadRow;
  accruingRateUsdHour: number;
  terminal: boolean;
}

/** Workloads: submit, read, list, cancel and their lifecycle events, each one transaction. */
export function createWorkloadService(deps: DomainContext) {
  const { store, clock, materialiser } = deps;

  /**
   * The tenant's workload brought up to its virtual now, then `fn` with it and its run, all in
   * one write transaction (materialising writes what fell due). A malformed id, a missing one and
   * another tenant's all read as 404.
   */
  function read<T>(tenantId: string, id: string, fn: (row: WorkloadRow, run: RunContext) => T): T {
    return store.write(() => {
      const row = currentWorkload(deps, tenantId, id);
      return fn(row, materialiser.context(row));
    });
  }

  return {
    read,

    /** POST /v1/workloads: admitted once per Idempotency-Key. */
    submit(tenantId: string, key: string, payload: Payload) {
      return admitOnce(deps, tenantId, key, {
        scope: 'POST /v1/workloads',
        fingerprint: canonicalSha256(payload),
        admit: (nowMs) => admitCustomWorkload(deps, tenantId, payload, nowMs),
      });
    },

    /** Checks a payload as submit would, admitting nothing. */
    validate(tenantId: string, payload: Payload): void {
      checkSubmission(deps, payload);
      checkWorkloadAssets(deps, tenantId, payload, clock.nowMs(tenantId));
    },

    /** Newest first; the contract's limit rule: absent, <= 0 or > 100 means 50. */
    list(tenantId: string, query: ListQuery): { workloads: ListedWorkload[]; nextOffset?: number } {
      const { limit: rawLimit, offset = 0, status, scope } = query;
      if (scope === 'mine') {
        throw new ApiError(403, 'attribution_required', 'scope=mine needs a member credential; this key is a team key (use scope=team)');
      }
      const limit = rawLimit === undefined || rawLimit <= 0 || rawLimit > 100 ? 50 : rawLimit;
      return store.write(() => {
        materialiser.materialiseTenant(tenantId, clock.nowMs(tenantId));
        const rows = store.workloads.list(tenantId, statusFilter(status), limit + 1, offset);
        const workloads = rows.slice(0, limit).map((row) => {
          const run = materialiser.context(row);
          const state = stateAt(run.spec, run.interventions, row.materialisedToMs, run.timeline);
          return { row, accruingRateUsdHour: state.accruingRateUsdHour, terminal: state.terminal };
        });
        return rows.length > limit ? { workloads, nextOffset: offset + limit } : { workloads };
      });
    },

    /** Cancelling twice, or a finished workload, is harmless: the SDK sends a fresh key each time. */
    cancel(tenantId: string, id: string): void {
      read(tenantId, id, (row) => {
        if (!isTerminal(row.status)) materialiser.intervene(row, clock.nowMs(tenantId), 'cancel');
      });
    },

    /** Lifecycle events after sequence id `after`, ascending, at most 100. */
    events(tenantId: string, id: string, after: number) {
      return read(tenantId, id, (row) => store.runtime.events(row.id, after, 100));
    },
  };
}
