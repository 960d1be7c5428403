import type { ConnectionCreate, ConnectionKind, ConnectionScope } from '../../../openapi/connections.js';
import { badRequest } from '../errors.js';
import { RESERVED_PREFIX } from '../secrets/service.js';

/**
 * The rules of a connection's fields: the SDK's own client-side checks, which the server repeats
 * so a request that bypasses the SDK gets the same answer.
 */

const NAME = /^[A-Za-z][A-Za-z0-9_-]{0,127}$/;
const SECRET_REF = /^(?:[A-Za-z_][A-Za-z0-9_]{0,127}|sec_[A-Za-z0-9_-]{1,128})$/;
const REGION = /^[a-z0-9][a-z0-9-]{0,62}$/;
const LABEL = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** A connection reference in a path: a name or a conn_ id; anything else names nothing. */
export const CONNECTION_REF = /^[A-Za-z_][A-Za-z0-9_-]{0,131}$/;

const DATABASE_KINDS: readonly ConnectionKind[] = ['postgres', 'neon', 'supabase'];

/** A checked request, with its defaults filled in. */
export interface PlannedConnection {
  name: string;
  kind: ConnectionKind;
  secret: string;
  scope: ConnectionScope;
  region: string | null;
  branch: string | null;
  entity: string | null;
  project: string | null;
  liveMode: boolean;
}

const invalid = (field: string, why: string) => badRequest('invalid_connection', `body.${field}: ${why}`);

function label(field: string, value: string | undefined, pattern: RegExp, rule: string): string | null {
  if (value === undefined) return null;
  if (!pattern.test(value)) throw invalid(field, `must be ${rule}`);
  return value;
}

export function planConnection(body: ConnectionCreate): PlannedConnection {
  const { name, kind, secret } = body;
  if (!NAME.test(name)) throw invalid('name', 'must start with a letter, then up to 127 letters, digits, _ or -');
  if (name.toLowerCase() === 'github' || name.startsWith('conn_')) throw invalid('name', '"github" and names starting with conn_ are reserved');
  if (!SECRET_REF.test(secret) || secret.startsWith(RESERVED_PREFIX)) {
    throw invalid('secret', `must be a secret name (not starting with ${RESERVED_PREFIX}) or a sec_ id`);
  }
  const labelRule = 'a letter or digit, then up to 127 letters, digits, _, . or -';
  const region = label('region', body.region, REGION, 'lower-case letters, digits and -, starting with a letter or digit, at most 63');
  const branch = label('branch', body.branch, LABEL, labelRule);
  const entity = label('entity', body.entity, LABEL, labelRule);
  const project = label('project', body.project, LABEL, labelRule);
  if (branch !== null && kind !== 'neon') throw invalid('branch', 'only a neon connection has a branch');
  if (kind === 'wandb' && (entity === null || project === null)) throw invalid(entity === null ? 'entity' : 'project', 'a wandb connection needs entity and project');
  if (kind !== 'wandb' && (entity !== null || project !== null)) throw invalid(entity !== null ? 'entity' : 'project', `only a wandb connection has one, not ${kind}`);
  const scope = body.scope ?? (DATABASE_KINDS.includes(kind) ? 'read' : 'write');
  const liveMode = body.live_mode ?? false;
  if (liveMode && (kind !== 'wandb' || scope === 'read')) throw invalid('live_mode', 'needs a wandb connection with write or readwrite scope');
  return { name, kind, secret, scope, region, branch, entity, project, liveMode };
}

/**
 * The hosts a connection may reach. The mock stores no credential to read a host from, so each
 * kind has fixed stand-ins (the region and branch take part where the kind has them).
 */
export function egressHosts(plan: Pick<PlannedConnection, 'kind' | 'region'>): string[] {
  switch (plan.kind) {
    case 'wandb':
      return ['api.wandb.ai'];
    case 'neon':
      return [`${plan.region ?? 'us-east-2'}.aws.neon.tech`];
    case 'supabase':
      return [`aws-0-${plan.region ?? 'us-east-1'}.pooler.supabase.com`];
    case 'postgres':
      return [`postgres.${plan.region ?? 'default'}.nodus-mock.invalid`];
  }
}
