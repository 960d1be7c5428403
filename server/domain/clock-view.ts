import type { z } from 'zod';
import type { clockMode } from '../../openapi/primitives.js';

/*
 * What a tenant's clock reads, kept out of clock.ts, which names the unit a clock moves in: a
 * unit's clock moves answer it (unit.ts).
 */

export type ClockMode = z.infer<typeof clockMode>;

export interface ClockView {
  mode: ClockMode;
  scale: number;
  nowMs: number;
}
