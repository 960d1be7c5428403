import type { z } from 'zod';
import type { RuleAction } from '../../../openapi/workload-rules.js';
import type { WorkloadPayload } from '../../../openapi/workload-payload.js';
import type { EvidenceCounters } from '../../../store/rl-events.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { stateAt } from '../../simulator/index.js';
import { isTerminal, WORKLOAD_STATUSES } from '../../simulator/types.js';
import { checkWorkloadAssets } from '../assets/workloads.js';
import { checkWorkloadConnection } from '../connections/uses.js';
import { canonicalSha256 } from '../json-text.js';
import type { DomainContext } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import { admitCustomWorkload, checkSubmission } from '../launches/custom-runs.js';
import { admitOnce, fingerprintOf, knownReplay } from '../keyed-admission.js';
import { changeFreeze, freezeView, type FreezeChange } from './freeze.js';
import { intervene } from './interventions.js';
import type { RunContext } from './run.js';
import { workloadOutputs, type WorkloadOutput } from './outputs.js';
import { artifacts, ledger, routing } from './records.js';
import { workloadView } from './view.js';
import type { TenantUnit } from '../unit.js';

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
interface ListedWorkload {
  row: WorkloadRow;
  accruingRateUsdHour: number;
  terminal: boolean;
}

/** A workload after a /_mock intervention, with the evidence counters the intervention reports. */
export interface Intervened {
  row: WorkloadRow;
  counters: EvidenceCounters;
}

/** The SDK's rule for output names, minus the names that would escape a folder. */
const OUTPUT_NAME = /^(?!\.{1,2}$)[A-Za-z0-9_.-]{1,128}$/;

/** Workloads: submit, read, list, cancel and their lifecycle events, each one transaction. */
export function createWorkloadService(deps: DomainContext) {
  const { clock, units } = deps;

  /**
   * Materialises, so it writes: the tenant's workload brought up to its virtual now, then `fn`
   * with it and its run, in one unit of work. A malformed id, a missing one and another
   * tenant's all read as 404.
   */
  function materialisedRead<T>(tenantId: string, id: string, fn: (row: WorkloadRow, run: RunContext, unit: TenantUnit) => T): T {
    return units.atNow(tenantId, (unit) => {
      const row = unit.workload(id);
      return fn(row, unit.run(row), unit);
    });
  }

  /** A freeze or resume, committed even when the simulator ignores it: the 409 is thrown after. */
  function requestFreezeChange(tenantId: string, id: string, kind: FreezeChange) {
    const outcome = units.atNow(tenantId, (unit) => changeFreeze(unit, unit.workload(id), kind));
    if ('refusal' in outcome) throw outcome.refusal;
    return outcome.view;
  }

  /** A /_mock intervention at the tenant's virtual now, and the counters after it, in one unit of work. */
  function interveneNow(tenantId: string, id: string, action: RuleAction): Intervened {
    return units.atNow(tenantId, (unit) => {
      const row = intervene(deps, unit, unit.workload(id), action, { afterMs: unit.nowMs });
      return { row, counters: unit.tables.rlEvents.counters(row.id) };
    });
  }

  return {
    materialisedRead,

    /** GET /v1/workloads/{id}: the workload as its owner sees it at the tenant's now. */
    describe: (tenantId: string, id: string) => materialisedRead(tenantId, id, workloadView),

    /** POST /v1/workloads: admitted once per Idempotency-Key; `text`, the body as sent, as for a launch. */
    submit(tenantId: string, key: string, payload: Payload, text?: string | null) {
      return admitOnce(deps, tenantId, key, {
        operation: 'workload.submit',
        fingerprint: fingerprintOf('workload.submit', text, () => canonicalSha256(payload)),
        admit: (unit) => admitCustomWorkload(deps, unit, payload),
      });
    },

    /** A retry of a submit that memory shows to be one, answered before its body is checked (knownReplay). */
    knownSubmitReplay: (tenantId: string, key: string, text: string | null) => knownReplay(deps, tenantId, 'workload.submit', key, text),

    /** Checks a payload as submit would, admitting nothing. */
    validate(tenantId: string, payload: Payload): void {
      checkSubmission(deps, payload);
      checkWorkloadAssets(deps.committed, tenantId, payload, clock.nowMs(tenantId));
      checkWorkloadConnection(deps.committed, tenantId, payload);
    },

    /**
     * Newest first; the contract's limit rule: absent, <= 0 or > 100 means 50. The tenant's runs
     * are brought up to now in slices first, so the page's own unit has only what fell due since.
     */
    async list(tenantId: string, query: ListQuery): Promise<{ workloads: ListedWorkload[]; nextOffset?: number }> {
      const { limit: rawLimit, offset = 0, status, scope } = query;
      if (scope === 'mine') {
        throw new DomainError('forbidden', 'attribution_required', 'scope=mine needs a member credential; this key is a team key (use scope=team)');
      }
      const limit = rawLimit === undefined || rawLimit <= 0 || rawLimit > 100 ? 50 : rawLimit;
      return units.atNowUpToDate(tenantId, (unit) => {
        const rows = unit.tables.workloads.list(tenantId, statusFilter(status), limit + 1, offset);
        const workloads = rows.slice(0, limit).map((row) => {
          const run = unit.run(row);
          const state = stateAt(run.spec, run.interventions, row.materialisedToMs, run.timeline);
          return { row, accruingRateUsdHour: state.accruingRateUsdHour, terminal: state.terminal };
        });
        return rows.length > limit ? { workloads, nextOffset: offset + limit } : { workloads };
      });
    },

    /** Cancelling twice, or a finished workload, is harmless: the SDK sends a fresh key each time. */
    cancel(tenantId: string, id: string): void {
      materialisedRead(tenantId, id, (row, _run, unit) => {
        if (!isTerminal(row.status)) unit.intervene(row, 'cancel');
      });
    },

    /** Lifecycle events after sequence id `after`, ascending, at most 100. */
    events(tenantId: string, id: string, after: number) {
      return materialisedRead(tenantId, id, (row, _run, unit) => unit.tables.runtime.events(row.id, after, 100));
    },

    freeze: (tenantId: string, id: string) => requestFreezeChange(tenantId, id, 'freeze'),
    resume: (tenantId: string, id: string) => requestFreezeChange(tenantId, id, 'resume'),

    /** The latest freeze and where it stands; 404 when the workload was never frozen. */
    freezeState(tenantId: string, id: string) {
      return materialisedRead(tenantId, id, (row, run) => {
        const view = freezeView(row, run);
        if (!view) throw new DomainError('not_found', 'not_found', `workload ${row.id} was never frozen`);
        return view;
      });
    },

    artifacts: (tenantId: string, id: string) => materialisedRead(tenantId, id, artifacts),

    ledger: (tenantId: string, id: string) => materialisedRead(tenantId, id, (row, run) => ({ workload_id: row.id, ...ledger(row, run) })),

    routing: (tenantId: string, id: string) =>
      materialisedRead(tenantId, id, (row, run) => ({ workload_id: row.id, placements: routing(deps, row, run) })),

    /** What the workload published; nothing until it completed. */
    outputs(tenantId: string, id: string): { workloadId: string; outputs: readonly WorkloadOutput[] } {
      return materialisedRead(tenantId, id, (row) => ({ workloadId: row.id, outputs: workloadOutputs(deps, row) }));
    },

    /** One output by name, in `stage` when given: 404 when there is none, 409 when stages share the name. */
    output(tenantId: string, id: string, name: string, stage: string | undefined): WorkloadOutput {
      // Checked before the workload is looked up: a bad name is a 400 whatever the id.
      if (!OUTPUT_NAME.test(name)) throw new DomainError('invalid', 'invalid_request', 'params.name: output names are letters, digits, `_`, `.` and `-`');
      const candidates = materialisedRead(tenantId, id, (row) => workloadOutputs(deps, row))
        .filter((o) => o.name === name && (stage === undefined || o.stageId === stage));
      if (candidates.length === 0) throw notFound(`output ${name}`);
      if (candidates.length > 1) {
        throw new DomainError('conflict', 'ambiguous_output', `output ${name} exists in stages ${candidates.map((c) => c.stageId).join(', ')}; pass ?stage=`);
      }
      return candidates[0];
    },

    /** Interrupts a running (or provisioning) run and recovers it in the next generation. */
    recover: (tenantId: string, id: string, replayLast?: number) => interveneNow(tenantId, id, { type: 'recover', replay_last: replayLast }),

    /** Counts `count` task events as lost; the run itself goes on unchanged. */
    dropEvents: (tenantId: string, id: string, count: number) => interveneNow(tenantId, id, { type: 'drop_events', count }),

    /** Ends an active run as failed. */
    fail: (tenantId: string, id: string, reason?: string) => interveneNow(tenantId, id, { type: 'fail', reason }),
  };
}
