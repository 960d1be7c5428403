import type { z } from 'zod';
import type { GradingPlanUpdate } from '../../../openapi/mock.js';
import type { EvidenceCounters, RLEventRow } from '../../../store/rl-events.js';
import type { LogAttempt, LogRow } from '../../../store/workload-runtime.js';
import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';
import type { TenantUnit } from '../unit.js';
import type { WorkloadRow } from '../../../store/workloads.js';
import { CURSOR_SECRET, cursorSecret, LOG_CURSOR_SECRET } from '../signed-cursors.js';
import { mintCursor, positionAfter } from './cursors.js';
import { gradingResults, putGradingPlan } from './grading.js';
import { ingestBody, ingestReported, type IngestJson, type IngestQuery } from './ingest.js';
import { summarise } from './summary.js';
import { countEventRead } from '../workloads/rules.js';

/** Lines per live page: a page stays well under a megabyte even when events carry traces. */
const LIVE_PAGE_LINES = 500;

/** One page of a workload's RL events and the counters of the same snapshot. */
export interface EventPage {
  events: RLEventRow[];
  nextCursor: string;
  hasMore: boolean;
  counters: EvidenceCounters;
}

export interface LogLinePage {
  lines: LogRow[];
  nextCursor: string;
  truncated: boolean;
}

const noMember = (workloadId: string, member: string) =>
  new DomainError('not_found', 'not_found', `workload ${workloadId} is not distributed: it has no member ${member}`);

/**
 * What workloads report: their task events, logs, grading receipts and the summary of them, and
 * the /_mock levers that put evidence in. Each method is one transaction on one workload.
 */
export function createEvidenceService(deps: DomainContext) {
  const { units } = deps;
  /** Materialises, so it writes: `fn` with the tenant's workload at its now, in one unit of work. */
  const materialisedRead = <T>(tenantId: string, id: string, fn: (row: WorkloadRow, unit: TenantUnit) => T): T =>
    units.atNow(tenantId, (unit) => fn(unit.workload(id), unit));

  return {
    /** Up to `limit` RL events after the cursor `after`, keyset-paged. */
    eventPage(tenantId: string, id: string, after: string | undefined, limit: number): EventPage {
      return materialisedRead(tenantId, id, (row, unit) => {
        const secret = cursorSecret(unit.tables, tenantId, CURSOR_SECRET);
        const afterSeq = positionAfter(secret, row.id, after, 'this workload');
        // One consistent snapshot: rows and counters read in the same transaction.
        const rows = unit.tables.rlEvents.page(row.id, afterSeq, limit + 1);
        const counters = unit.tables.rlEvents.counters(row.id);
        const events = rows.slice(0, limit);
        const nextCursor = mintCursor(secret, row.id, events.length ? events[events.length - 1].seq : afterSeq);
        // After the page is read: a rule waiting for this read changes what the next one sees.
        countEventRead(deps, unit, row);
        return { events, nextCursor, hasMore: rows.length > limit, counters };
      });
    },

    /** One attempt's retained log: the latest, or the stage and generation asked for; 404 before its first line. */
    log(tenantId: string, id: string, query: { stage?: string; generation?: number; member?: string }): { attempt: LogAttempt; lines: string[] } {
      const { stage, generation, member } = query;
      return materialisedRead(tenantId, id, (row, { tables }) => {
        if (member !== undefined) throw noMember(row.id, member);
        const attempt = tables.runtime.logAttempt(row.id, stage, generation);
        if (!attempt) {
          const which = [stage && `stage ${stage}`, generation && `generation ${generation}`].filter(Boolean).join(', ');
          throw new DomainError('not_found', 'not_found', `workload ${row.id} has written no log${which ? ` for ${which}` : ''} yet`);
        }
        return { attempt, lines: tables.runtime.attemptLines(row.id, attempt.stageId, attempt.generation) };
      });
    },

    /** Log lines after the cursor `after`, across stages and generations. */
    liveLog(tenantId: string, id: string, after: string | undefined, member: string | undefined): LogLinePage {
      return materialisedRead(tenantId, id, (row, unit) => {
        if (member !== undefined) throw noMember(row.id, member);
        const secret = cursorSecret(unit.tables, tenantId, LOG_CURSOR_SECRET);
        const afterSeq = positionAfter(secret, row.id, after, 'this workload\'s log');
        const lines = unit.tables.runtime.logs(row.id, afterSeq, LIVE_PAGE_LINES);
        return {
          lines,
          nextCursor: mintCursor(secret, row.id, lines.length ? lines[lines.length - 1].seq : afterSeq),
          truncated: unit.tables.runtime.logsTruncated(row.id),
        };
      });
    },

    gradingResults: (tenantId: string, id: string, revision: number) =>
      materialisedRead(tenantId, id, (row, unit) => gradingResults(unit, row, revision)),

    summary: (tenantId: string, id: string) =>
      materialisedRead(tenantId, id, (row, { tables }) => summarise(row.id, tables.rlEvents.reports(row.id), tables.rlEvents.counters(row.id))),

    /** Application-reported events, as the runner takes them from a workload's output. */
    ingest(tenantId: string, id: string, body: IngestJson | string | undefined, query: IngestQuery) {
      // The body is read first: a request without one is a 400 whatever the id.
      const reported = ingestBody(body);
      return materialisedRead(tenantId, id, (row, unit) => ingestReported(deps, unit, row, reported, query));
    },

    putGradingPlan: (tenantId: string, id: string, update: z.output<typeof GradingPlanUpdate>) =>
      materialisedRead(tenantId, id, (row, unit) => putGradingPlan(deps, unit, row, update, unit.nowMs)),
  };
}
