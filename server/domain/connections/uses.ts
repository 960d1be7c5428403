import type { WorkloadPayload } from '../../../openapi/workload-payload.js';
import type { ConnectionRow } from '../../../store/connections.js';
import type { TenantUnit } from '../unit.js';
import { badRequest } from '../errors.js';
import { findConnection, refuseStale, type ConnectionReads } from './service.js';

/**
 * The uses of a connection elsewhere: a workload's `connections` (one live wandb connection) and
 * a connection_query import (a database connection that may read). Each refusal is a 400 with a
 * code of its own; another tenant's connection reads as unknown.
 */

const unknown = (field: string, ref: string) =>
  badRequest('connection_not_found', `${field}: no connection ${ref} in this tenant (create it first: POST /v1/connections)`);

/** The connection a workload names, checked for admission; undefined when it names none. */
export function checkWorkloadConnection(rows: ConnectionReads, tenantId: string, payload: WorkloadPayload): ConnectionRow | undefined {
  const ref = payload.connections?.[0];
  if (ref === undefined) return undefined;
  const field = 'body.connections.0';
  const row = findConnection(rows, tenantId, ref);
  if (!row) throw unknown(field, ref);
  refuseStale(rows, row, field);
  if (row.kind !== 'wandb' || row.liveMode !== 1 || row.scope === 'read') {
    throw badRequest('connection_not_live', `${field}: a workload takes one wandb connection with live_mode and write or readwrite scope; ${row.name} is a ${row.kind} connection${row.kind === 'wandb' ? ` with ${row.liveMode ? '' : 'no '}live mode and ${row.scope} scope` : ''}`);
  }
  return row;
}

/**
 * The connection check of an admission, inside its transaction, once the workload row exists: a
 * refusal throws (and rolls the admission back); an admitted workload holds its connection.
 */
export function bindWorkloadConnection(unit: TenantUnit, workloadId: string, payload: WorkloadPayload): void {
  const row = checkWorkloadConnection(unit.tables, unit.tenantId, payload);
  if (row) unit.tables.connections.hold(workloadId, row.id);
}

/** A connection_query import's connection: current, a database, allowed to read, on the branch it verified. */
export function checkQueryConnection(rows: ConnectionReads, tenantId: string, ref: string, branch: string): void {
  const field = 'body.connection_id';
  const row = findConnection(rows, tenantId, ref);
  if (!row) throw unknown(field, ref);
  refuseStale(rows, row, field);
  if (row.kind === 'wandb' || row.scope === 'write') {
    throw badRequest('connection_scope', `${field}: a query import needs a database connection with read or readwrite scope; ${row.name} is ${row.kind} with ${row.scope} scope`);
  }
  if (branch !== '' && branch !== (row.branch ?? '')) {
    throw badRequest('branch_mismatch', `body.branch: "${branch}" is not the branch connection ${row.name} verified (${row.branch === null ? 'none' : `"${row.branch}"`})`);
  }
}
