import type { z } from 'zod';
import type { Fault } from '../../../openapi/mock.js';
import type { FaultRow } from '../../../store/faults.js';
import type { FaultActionInput } from '../../domain/control/faults.js';
import { isoTime } from '../../domain/clock.js';

export function presentFault(row: FaultRow): z.infer<typeof Fault> {
  return {
    id: row.id,
    method: row.method as z.infer<typeof Fault>['method'],
    path: row.path,
    times: row.times,
    after: row.after,
    action: JSON.parse(row.action) as FaultActionInput,
    remaining: row.times - row.applied,
    seen: row.seen,
    applied: row.applied,
    source: row.source,
    created_at: isoTime(row.createdAtMs),
  };
}

