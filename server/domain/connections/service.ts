import type { ConnectionCreate } from '../../../openapi/connections.js';
import type { ConnectionRow } from '../../../store/connections.js';
import type { SecretRow } from '../../../store/secrets.js';
import { isTerminal } from '../../simulator/types.js';
import type { DomainContext } from '../context.js';
import { DomainError, badRequest, conflict } from '../errors.js';
import { newConnectionId } from '../ids.js';
import { SECRET_ID_PATTERN } from '../secrets/service.js';
import type { Tables } from '../unit.js';
import { CONNECTION_REF, egressHosts, planConnection } from './rules.js';

/** What one tenant may keep. */
export const MAX_CONNECTIONS = 100;

export const connectionNotFound = (ref: string) => new DomainError('not_found', 'not_found', `connection ${ref} not found`);

/**
 * What a connection's checks read: a unit's tables inside its transaction, the committed rows
 * (DomainContext.committed) where a check runs in none.
 */
export interface ConnectionReads {
  connections: Pick<Tables['connections'], 'find'>;
  secrets: Pick<Tables['secrets'], 'byId'>;
}

/** The tenant's connection by name or id; a malformed reference names nothing. */
export function findConnection(rows: ConnectionReads, tenantId: string, ref: string): ConnectionRow | undefined {
  return CONNECTION_REF.test(ref) ? rows.connections.find(tenantId, ref) : undefined;
}

/**
 * Why a connection can take no new use, or undefined while its pinned secret version is still the
 * current one: a later put of the secret, or its delete, retires the version it pinned.
 */
export function staleness(rows: ConnectionReads, row: ConnectionRow): string | undefined {
  const secret = rows.secrets.byId(row.tenantId, row.secretId);
  if (!secret) return `connection ${row.name} pins secret ${row.secretId}, which was deleted; create a new connection with a current secret`;
  if (secret.version !== row.secretVersion) {
    return `connection ${row.name} pins version ${row.secretVersion} of secret ${secret.name}, which is now at version ${secret.version}; create a new connection to adopt it`;
  }
  return undefined;
}

/** 400 connection_stale when the connection's pinned secret version was retired. */
export function refuseStale(rows: ConnectionReads, row: ConnectionRow, field: string): void {
  const why = staleness(rows, row);
  if (why) throw badRequest('connection_stale', `${field}: ${why}`);
}

function secretOf(secrets: Pick<Tables['secrets'], 'byId' | 'byName'>, tenantId: string, ref: string): SecretRow {
  const secret = (SECRET_ID_PATTERN.test(ref) ? secrets.byId(tenantId, ref) : undefined) ?? secrets.byName(tenantId, ref);
  if (!secret) throw badRequest('secret_not_found', `body.secret: no secret ${ref} in this tenant; put it first (POST /v1/secrets)`);
  return secret;
}

/** Connections to external systems, each operation one transaction; no credential is ever shown. */
export function createConnectionService(deps: Pick<DomainContext, 'units' | 'committed'>) {
  const { committed, units } = deps;

  const find = (rows: ConnectionReads, tenantId: string, ref: string): ConnectionRow => {
    const row = findConnection(rows, tenantId, ref);
    if (!row) throw connectionNotFound(ref);
    return row;
  };

  return {
    /**
     * POST /v1/connections: verified at once (a fault rule on the route is how a test makes
     * verification fail), pinning the secret's current version.
     */
    create(tenantId: string, createdBy: string, body: ConnectionCreate): ConnectionRow {
      const plan = planConnection(body);
      return units.atNow(tenantId, ({ nowMs, tables }) => {
        const secret = secretOf(tables.secrets, tenantId, plan.secret);
        if (tables.connections.find(tenantId, plan.name)) {
          throw badRequest('connection_exists', `body.name: this tenant already has a connection ${plan.name}; delete it first or choose another name`);
        }
        if (tables.connections.count(tenantId) >= MAX_CONNECTIONS) {
          throw badRequest('connection_limit_reached', `this tenant already has ${MAX_CONNECTIONS} connections; delete one first`);
        }
        const row: ConnectionRow = {
          id: newConnectionId(),
          tenantId,
          name: plan.name,
          kind: plan.kind,
          secretId: secret.id,
          secretVersion: secret.version,
          scope: plan.scope,
          region: plan.region,
          branch: plan.branch,
          entity: plan.entity,
          project: plan.project,
          liveMode: plan.liveMode ? 1 : 0,
          egressHosts: JSON.stringify(egressHosts(plan)),
          verifiedAtMs: nowMs,
          createdAtMs: nowMs,
          createdBy,
        };
        tables.connections.insert(row);
        return row;
      });
    },

    list(tenantId: string): ConnectionRow[] {
      return committed.connections.list(tenantId);
    },

    get(tenantId: string, ref: string): ConnectionRow {
      return find(committed, tenantId, ref);
    },

    /** POST /v1/connections/{id}/verify: verified_at moves to now while the pinned secret is current. */
    verify(tenantId: string, ref: string): ConnectionRow {
      return units.atNow(tenantId, ({ nowMs, tables }) => {
        const row = find(tables, tenantId, ref);
        refuseStale(tables, row, 'verify');
        tables.connections.verified(row.id, nowMs);
        return { ...row, verifiedAtMs: nowMs };
      });
    },

    /** 409 connection_in_use while a workload admitted with it, or a query export through it, is active. */
    delete(tenantId: string, ref: string): void {
      units.atNow(tenantId, (unit) => {
        const { nowMs } = unit;
        const row = find(unit.tables, tenantId, ref);
        for (const holder of unit.tables.connections.holders(row.id)) {
          if (isTerminal(holder.status)) continue;
          const workload = unit.tables.workloads.get(tenantId, holder.id);
          // Materialised first: a workload that ended in virtual time no longer holds it.
          if (workload && !isTerminal(unit.materialise(workload).status)) {
            throw conflict('connection_in_use', `connection ${row.name} is used by workload ${holder.id}, which has not ended; delete it after the workload completes, fails or is cancelled`);
          }
        }
        const asset = unit.tables.connections.exportInProgress(tenantId, row, nowMs);
        if (asset) throw conflict('connection_in_use', `connection ${row.name} is exporting a query into asset ${asset}; delete it once the import is ready or failed`);
        unit.tables.connections.remove(row.id);
      });
    },
  };
}

export type ConnectionService = ReturnType<typeof createConnectionService>;
