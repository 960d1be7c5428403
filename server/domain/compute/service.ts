import type { ComputeQuery, ComputeState } from '../../../openapi/compute.js';
import type { Requirements, WorkloadPayload } from '../../../openapi/workload-payload.js';
import type { ComputeRow } from '../../../store/compute.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { isTerminal, type WorkloadStatus } from '../../simulator/types.js';
import type { DomainContext } from '../context.js';
import { CURSOR_SECRET } from '../signed-cursors.js';
import { DomainError, notFound } from '../errors.js';
import type { TenantUnit } from '../unit.js';
import { computeAfter, mintComputeCursor } from './cursors.js';

const DEFAULT_LIMIT = 50;
const SWEEP_PREFIX = 'sweep_';

/** How a workload status reads as a compute state. */
const STATES: Record<WorkloadStatus, ComputeState> = {
  accepted: 'starting',
  planning: 'starting',
  reserving: 'starting',
  provisioning: 'starting',
  running: 'running',
  recovering: 'recovering',
  freezing: 'stopping',
  frozen: 'paused',
  completed: 'succeeded',
  failed: 'failed',
  cancelled: 'cancelled',
};
/** A sweep's state is its most advanced running one, else what its ended runs came to. */
const SWEEP_ORDER: ComputeState[] = ['running', 'recovering', 'starting', 'stopping', 'paused', 'failed', 'succeeded', 'cancelled'];

export interface SweepGroup {
  id: string;
  sweepId: string;
  size: number;
  running: number;
  succeeded: number;
  failed: number;
}

/** One item as the domain sees it; server/http/views/compute.ts renders it. */
export interface ComputeEntry {
  id: string;
  name: string;
  gpu: string | null;
  gpuCount: number;
  state: ComputeState;
  statusText: string;
  createdAtMs: number;
  startedAtMs: number | null;
  endedAtMs: number | null;
  group: SweepGroup | null;
  resource: { kind: 'workload' | 'sweep'; id: string };
}

export interface ComputePage<T> {
  items: ComputeEntry[];
  nextCursor: string | null;
  extra: T;
}

function requirementsOf(payload: WorkloadPayload): Requirements {
  return payload.requirements ?? payload.stages?.[0]?.requirements ?? {};
}

/** Sweep counts from the grouped row. */
function groupOf(row: ComputeRow): SweepGroup {
  const statuses = JSON.parse(row.statuses) as Record<string, number>;
  return {
    id: row.key,
    sweepId: row.sweepId!,
    size: row.size,
    running: row.running,
    succeeded: statuses.completed ?? 0,
    failed: statuses.failed ?? 0,
  };
}

/**
 * GET /v1/compute and its sweep groups over the tenant's workloads, every one of which is training
 * here: the mock runs no standalone instances and no workspaces, so those types list nothing.
 */
export function createComputeService(deps: Pick<DomainContext, 'committed' | 'units' | 'materialiser'>) {
  const { committed, units, materialiser } = deps;

  /** A workload as an item, from its materialised row and timeline. */
  function workloadEntry(row: WorkloadRow, group: SweepGroup | null): ComputeEntry {
    const payload = JSON.parse(row.payload) as WorkloadPayload;
    const requirements = requirementsOf(payload);
    const { timeline } = materialiser.context(row);
    const started = timeline.items.find((item) => item.kind === 'status' && item.status === 'running' && item.atMs <= row.materialisedToMs);
    return {
      id: row.id,
      name: row.name ?? row.id,
      gpu: requirements.compute_class === 'vm' ? null : requirements.gpu ?? null,
      gpuCount: requirements.compute_class === 'vm' ? 0 : Number(requirements.gpu_count ?? 1),
      state: STATES[row.status as WorkloadStatus],
      statusText: row.status,
      createdAtMs: row.createdAtMs,
      startedAtMs: started?.atMs ?? null,
      endedAtMs: isTerminal(row.status) ? timeline.endAtMs ?? row.updatedAtMs : null,
      group,
      resource: { kind: 'workload', id: row.id },
    };
  }

  /** A sweep as one item, read in the page's unit: its first run's settings, the group's counts and state. */
  function sweepEntry({ tables, tenantId }: TenantUnit, row: ComputeRow): ComputeEntry {
    const group = groupOf(row);
    const first = workloadEntry(tables.workloads.get(tenantId, row.firstId)!, null);
    const statuses = JSON.parse(row.statuses) as Record<string, number>;
    const states = new Set(Object.keys(statuses).map((s) => STATES[s as WorkloadStatus]));
    const state = SWEEP_ORDER.find((s) => states.has(s)) ?? 'succeeded';
    const ended = row.running === 0 && !states.has('paused');
    return {
      ...first,
      id: row.key,
      name: group.sweepId,
      state,
      statusText: `${group.size} runs: ${group.running} running, ${group.succeeded} succeeded, ${group.failed} failed`,
      endedAtMs: ended ? tables.compute.lastUpdate(tenantId, group.sweepId) : null,
      group,
      resource: { kind: 'sweep', id: group.sweepId },
    };
  }

  const secret = () => committed.settings.secret(CURSOR_SECRET);

  return {
    async list(tenantId: string, query: ComputeQuery): Promise<ComputePage<{ runningTraining: number }>> {
      if (query.launched_by === 'me') {
        throw new DomainError('forbidden', 'attribution_required', 'launched_by=me needs a member credential; every key here is a team key (omit launched_by)');
      }
      const state = query.state ?? 'running';
      const limit = query.limit ?? DEFAULT_LIMIT;
      const scope = `${tenantId}\n${state}\n${query.type ?? ''}\n${query.include ?? ''}\n${query.launched_by ?? ''}`;
      const after = computeAfter(secret(), scope, query.cursor);
      return units.atNowUpToDate(tenantId, (unit) => {
        const { tables } = unit;
        const runningTraining = tables.compute.runningRuns(tenantId);
        // No instances or workspaces here; and no launch is attributed to an agent (client api).
        const training = (query.type === undefined || query.type === 'training') && query.launched_by !== 'agents';
        if (!training) return { items: [], nextCursor: null, extra: { runningTraining } };
        const rows = tables.compute.page(tenantId, state === 'running', after, limit + 1);
        const items = rows.slice(0, limit).map((row) =>
          row.sweepId === null ? workloadEntry(tables.workloads.get(tenantId, row.key)!, null) : sweepEntry(unit, row));
        const last = rows.length > limit ? rows[limit - 1] : undefined;
        return { items, nextCursor: last ? mintComputeCursor(secret(), scope, last) : null, extra: { runningTraining } };
      });
    },

    /** GET /v1/compute/groups/{id}: the sweep's counts and a page of its runs, newest first. */
    async group(tenantId: string, id: string, query: { limit?: number; cursor?: string }): Promise<ComputePage<{ group: SweepGroup }>> {
      const sweepId = id.startsWith(SWEEP_PREFIX) ? id.slice(SWEEP_PREFIX.length) : '';
      const limit = query.limit ?? DEFAULT_LIMIT;
      const scope = `${tenantId}\nsweep\n${sweepId}`;
      const after = computeAfter(secret(), scope, query.cursor);
      return units.atNowUpToDate(tenantId, ({ tables }) => {
        const row = sweepId === '' ? undefined : tables.compute.sweep(tenantId, sweepId);
        if (!row) throw notFound(`compute group ${id} (a sweep with training in this account)`);
        const group = groupOf(row);
        const members = tables.compute.members(tenantId, sweepId, after, limit + 1);
        const items = members.slice(0, limit).map((m) => workloadEntry(tables.workloads.get(tenantId, m.key)!, group));
        const last = members.length > limit ? members[limit - 1] : undefined;
        return { items, nextCursor: last ? mintComputeCursor(secret(), scope, last) : null, extra: { group } };
      });
    },
  };
}

export type ComputeService = ReturnType<typeof createComputeService>;
