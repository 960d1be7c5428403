import type { z } from 'zod';
import type { InterventionResult } from '../../../openapi/mock.js';
import type { Intervened } from '../../domain/workloads/service.js';

/** The answer of every /_mock/workloads/{id} intervention: where the run and its evidence stand. */
export function interventionView({ row, counters }: Intervened): z.infer<typeof InterventionResult> {
  return { workload_id: row.id, status: row.status, generation: row.generation, dropped_events: counters.dropped, truncated: counters.truncated };
}
