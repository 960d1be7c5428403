import type { z } from 'zod';
import type { LeversUpdate } from '../../../openapi/mock.js';
import type { Levers } from '../../../store/admission.js';
import type { TenantUnit } from '../unit.js';

/** The wire view of a tenant's levers. */
export const leversView = (l: Levers) => ({ review_expiry: l.reviewExpiry, unrecoverable_error_rate: l.unrecoverableErrorRate });

/** Sets the levers the update names; the others keep their values. */
export function setLevers(unit: TenantUnit, update: z.output<typeof LeversUpdate>): Levers {
  const current = unit.tables.cached.levers(unit.tenantId);
  const next: Levers = {
    reviewExpiry: update.review_expiry ?? current.reviewExpiry,
    unrecoverableErrorRate: update.unrecoverable_error_rate === undefined ? current.unrecoverableErrorRate : update.unrecoverable_error_rate,
  };
  unit.tables.levers.setLevers(unit.tenantId, next);
  return next;
}
