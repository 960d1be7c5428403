import type { SecretWrite } from '../../../openapi/secrets.js';
import type { SecretRow } from '../../../store/secrets.js';
import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';
import { newSecretId } from '../ids.js';

export const SECRET_ID_PATTERN = /^sec_[A-Za-z0-9_-]{1,128}$/;

/** What one tenant may keep; a put of a new name past it is refused. */
export const MAX_SECRETS = 100;
export const MAX_VALUE_BYTES = 4096;
/** Names the platform keeps for the variables it sets itself. */
export const RESERVED_PREFIX = 'NODUS_';

// Each refusal carries the remedy SandboxError shows as `fix`.
const reservedName = (name: string) =>
  new DomainError('invalid', 'reserved_secret_name', `name "${name}" starts with ${RESERVED_PREFIX}, which the platform reserves`, { fix: `choose a name that does not start with ${RESERVED_PREFIX}` });

const secretNotFound = (name: string) =>
  new DomainError('not_found', 'not_found', `secret ${name} not found`, { fix: 'list this tenant\'s secrets with GET /v1/secrets; names are case-sensitive' });

/**
 * Secrets: write-only, versioned per name, each operation one transaction. The value is checked
 * and then dropped: it is stored nowhere (migration 010), so nothing can ever show it.
 */
export function createSecretService(deps: Pick<DomainContext, 'units' | 'committed'>) {
  const { committed, units } = deps;
  return {
    /** POST /v1/secrets: a new secret at version 1, or the next version of the name's. */
    put(tenantId: string, body: SecretWrite): SecretRow {
      if (body.name.startsWith(RESERVED_PREFIX)) throw reservedName(body.name);
      if (Buffer.byteLength(body.value, 'utf8') > MAX_VALUE_BYTES) {
        throw new DomainError('invalid', 'secret_too_large', `the value of ${body.name} is over ${MAX_VALUE_BYTES} UTF-8 bytes`, { fix: `store at most ${MAX_VALUE_BYTES} bytes; keep larger material in an asset` });
      }
      if (body.value.includes('\0')) {
        throw new DomainError('invalid', 'invalid_secret_value', `the value of ${body.name} contains a NUL character`, { fix: 'remove NUL characters from the value' });
      }
      return units.atNow(tenantId, ({ nowMs, tables }) => {
        const existing = tables.secrets.byName(tenantId, body.name);
        if (existing) {
          tables.secrets.bump(existing.id, nowMs);
          return { ...existing, version: existing.version + 1, createdAtMs: nowMs };
        }
        if (tables.secrets.count(tenantId) >= MAX_SECRETS) {
          throw new DomainError('invalid', 'secret_limit_reached', `this tenant already has ${MAX_SECRETS} secrets`, { fix: 'delete a secret you no longer use (DELETE /v1/secrets/{name}), then put this one' });
        }
        const row: SecretRow = { id: newSecretId(), tenantId, name: body.name, version: 1, createdAtMs: nowMs };
        tables.secrets.insert(row);
        return row;
      });
    },

    list(tenantId: string): SecretRow[] {
      return committed.secrets.list(tenantId);
    },

    /** DELETE /v1/secrets/{name}: connections that pin it can no longer be used. */
    delete(tenantId: string, name: string): void {
      if (name.startsWith(RESERVED_PREFIX)) throw reservedName(name);
      units.atNow(tenantId, ({ tables }) => {
        const row = tables.secrets.byName(tenantId, name);
        if (!row) throw secretNotFound(name);
        tables.secrets.remove(row.id);
      });
    },
  };
}

export type SecretService = ReturnType<typeof createSecretService>;
