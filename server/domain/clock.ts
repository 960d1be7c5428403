import type { Config } from '../config.js';
import type { ClockMode, ClockView } from './clock-view.js';
import type { CommittedReads, TenantUnit } from './unit.js';
import type { ClockRow } from '../../store/tenants.js';
import { badRequest } from './errors.js';

/**
 * Each tenant's virtual time. realtime: the anchor plus elapsed wall time times the scale;
 * manual: the anchor, moved only by advance(). Re-anchoring at the current virtual time on every
 * change is what keeps time from ever running backwards.
 */
export class VirtualClock {
  constructor(
    /** The clock rows as committed; a change reads and writes its unit's own. */
    private readonly rows: Pick<CommittedReads['cached'], 'clock'>,
    private readonly config: Pick<Config, 'clock' | 'timeScale'>,
    readonly wallNow: () => number = Date.now,
  ) {}

  view(tenantId: string): ClockView {
    return this.compute(this.rows.clock(tenantId), this.wallNow());
  }

  nowMs(tenantId: string): number {
    return this.view(tenantId).nowMs;
  }

  /* The changes below write the unit's tenant's clock through its tables, in its transaction. */

  set(unit: TenantUnit, mode: ClockMode, scale?: number): ClockView {
    const { tables, tenantId } = unit;
    const row = tables.cached.clock(tenantId);
    const wall = this.wallNow();
    const current = this.compute(row, wall);
    tables.tenants.setClock(tenantId, {
      mode,
      scale: scale ?? row.scale,
      anchorWallMs: wall,
      anchorVirtualMs: current.nowMs,
    });
    return this.viewIn(unit);
  }

  /** Moves the clock forward; a move past the end of its range is a 400 and moves nothing. */
  advance(unit: TenantUnit, seconds: number): ClockView {
    const { tables, tenantId } = unit;
    const row = tables.cached.clock(tenantId);
    const wall = this.wallNow();
    const current = this.compute(row, wall);
    const target = current.nowMs + Math.round(seconds * 1000);
    if (target > CLOCK_RANGE_MS.max) {
      throw badRequest(
        'clock_out_of_range',
        `advancing ${seconds} s would move the clock to ${isoTime(Math.min(target, MAX_DATE_MS))}, past the end of its range, ${isoTime(CLOCK_RANGE_MS.max)} (it is ${isoTime(current.nowMs)})`,
      );
    }
    tables.tenants.setClock(tenantId, { ...row, anchorWallMs: wall, anchorVirtualMs: target });
    return this.viewIn(unit);
  }

  /** Back to the configured mode and scale, keeping the current virtual time. */
  resetToDefaults(unit: TenantUnit): ClockView {
    const { tables, tenantId } = unit;
    const row = tables.cached.clock(tenantId);
    const wall = this.wallNow();
    const current = this.compute(row, wall);
    tables.tenants.setClock(tenantId, {
      mode: null,
      scale: null,
      anchorWallMs: wall,
      anchorVirtualMs: current.nowMs,
    });
    return this.viewIn(unit);
  }

  /** Mode and scale as saved, at the virtual time `nowMs` from now on. */
  restore(unit: TenantUnit, mode: ClockMode, scale: number, nowMs: number): ClockView {
    unit.tables.tenants.setClock(unit.tenantId, { mode, scale, anchorWallMs: this.wallNow(), anchorVirtualMs: nowMs });
    return this.viewIn(unit);
  }

  /** The clock as the unit's transaction has it now, after its change. */
  private viewIn({ tables, tenantId }: TenantUnit): ClockView {
    return this.compute(tables.cached.clock(tenantId), this.wallNow());
  }

  private compute(row: ClockRow, wall: number): ClockView {
    const mode = row.mode ?? this.config.clock;
    const scale = row.scale ?? this.config.timeScale;
    const elapsed = mode === 'realtime' ? Math.max(0, wall - row.anchorWallMs) * scale : 0;
    // A realtime clock stops at the end of the range rather than run past it.
    return { mode, scale, nowMs: Math.min(row.anchorVirtualMs + Math.floor(elapsed), Math.max(row.anchorVirtualMs, CLOCK_RANGE_MS.max)) };
  }
}

/**
 * The range of every virtual time a tenant can hold: 0 (1970) to the start of year 5000. The end is
 * far below year 10000, where ISO text grows a sign and two more digits (and Date stops at 275760):
 * a run started at the end, plus the longest run and a year of idempotency TTL, still reads and
 * writes four-digit years. A restored snapshot's times are held to it (snapshots/checks.ts).
 */
export const CLOCK_RANGE_MS = { min: 0, max: Date.UTC(5000, 0, 1) } as const;
/** The last instant a Date can hold: an ISO text of anything later throws. */
const MAX_DATE_MS = 8.64e15;

export const inClockRange = (ms: number): boolean => Number.isSafeInteger(ms) && ms >= CLOCK_RANGE_MS.min && ms <= CLOCK_RANGE_MS.max;

export const isoTime = (ms: number) => new Date(ms).toISOString();
