import type { z } from 'zod';
import type { LeversUpdate } from '../../../openapi/mock.js';
import type { Levers } from '../../../store/levers.js';
import type { DomainContext } from '../context.js';

/** The wire view of a tenant's levers. */
export const leversView = (l: Levers) => ({ review_expiry: l.reviewExpiry, unrecoverable_error_rate: l.unrecoverableErrorRate });

/** Sets the levers the update names; the others keep their values. */
export function setLevers(deps: DomainContext, tenantId: string, update: z.output<typeof LeversUpdate>): Levers {
  const current = deps.tables.levers.levers(tenantId);
  const next: Levers = {
    reviewExpiry: update.review_expiry ?? current.reviewExpiry,
    unrecoverableErrorRate: update.unrecoverable_error_rate === undefined ? current.unrecoverableErrorRate : update.unrecoverable_error_rate,
  };
  deps.tables.levers.setLevers(tenantId, next);
  return next;
}
