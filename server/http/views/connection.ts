import type { Connection } from '../../../openapi/connections.js';
import type { SecretMetadata } from '../../../openapi/secrets.js';
import type { ConnectionRow } from '../../../store/connections.js';
import type { SecretRow } from '../../../store/secrets.js';
import { isoTime } from '../../domain/clock.js';

/** A secret's metadata: there is no value to leave out, none being stored. */
export const secretView = (row: SecretRow): SecretMetadata => ({
  id: row.id,
  name: row.name,
  version: row.version,
  created_at: isoTime(row.createdAtMs),
});

/** A connection as stored; the optional fields only where the kind has them. */
export function connectionView(row: ConnectionRow): Connection {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    secret_id: row.secretId,
    secret_version: row.secretVersion,
    scope: row.scope,
    ...(row.region === null ? {} : { region: row.region }),
    ...(row.branch === null ? {} : { branch: row.branch }),
    ...(row.entity === null ? {} : { entity: row.entity }),
    ...(row.project === null ? {} : { project: row.project }),
    egress_hosts: JSON.parse(row.egressHosts) as string[],
    live_mode: row.liveMode === 1,
    verified_at: isoTime(row.verifiedAtMs),
    created_at: isoTime(row.createdAtMs),
    created_by: row.createdBy,
  };
}
