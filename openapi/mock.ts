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

export const RecipeOverrideUpdate = z
  .strictObject({
    available: z.boolean(),
    unavailable_reason: z.string().min(1).max(512).optional().describe('shown to this tenant while unavailable'),
  })
  .meta({ id: 'MockRecipeOverride' });

export const BudgetUpdate = z
  .strictObject({
    monthly_spend_cap_usd: z.number().nonnegative().max(1e9),
    month_to_date_usd: z.number().nonnegative().max(1e9).optional().describe('spend already counted this month (default 0)'),
  })
  .meta({ id: 'MockBudget' });

export const RecoverRequest = z
  .strictObject({
    replay_last: z.int().min(0).max(100_000).optional().describe('task events of the old generation reported again, with their event ids, in the new one (default 0)'),
  })
  .meta({ id: 'MockRecover' });

export const DropEventsRequest = z
  .strictObject({ count: z.int().min(1).max(1_000_000_000) })
  .meta({ id: 'MockDropEvents' });

export const FailRequest = z
  .strictObject({ reason: z.string().min(1).max(1024).optional() })
  .meta({ id: 'MockFail' });

export const InterventionResult = z
  .object({
    workload_id: z.string(),
    status: z.string(),
    generation: z.int(),
    dropped_events: z.int(),
    truncated: z.boolean(),
  })
  .meta({ id: 'MockInterventionResult' });
