import { z } from 'zod';

/** Schemas of the /_mock control API (shared/control-api.md). */

export const ClockState = z
  .object({
    mode: z.enum(['realtime', 'manual']),
    scale: z.number().describe('virtual seconds per wall second in realtime mode'),
    now: z.string().describe('RFC 3339 virtual time'),
  })
  .meta({ id: 'MockClock' });

export const ClockUpdate = z
  .strictObject({
    mode: z.enum(['realtime', 'manual']),
    scale: z.number().positive().max(1_000_000).optional(),
  })
  .meta({ id: 'MockClockUpdate' });

export const ClockAdvance = z
  .strictObject({
    seconds: z.number().positive().max(10 * 365 * 24 * 3600).describe('virtual seconds to move forward'),
  })
  .meta({ id: 'MockClockAdvance' });

export const ClockNow = z.object({ now: z.string() }).meta({ id: 'MockClockNow' });
