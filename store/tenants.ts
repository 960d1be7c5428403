import { randomBytes } from 'node:crypto';
import type { Db } from './db.js';

export interface ClockRow {
  mode: 'realtime' | 'manual' | null;
  scale: number | null;
  anchorWallMs: number;
  anchorVirtualMs: number;
}

export interface KeyMove {
  keyId: string;
  from: string;
  to: string;
}
/**
 * The tenant of a key that --keys gives no tenant (open mode, or an entry without `=tenant`): its
 * own, named by its hash. The SQL below that finds the keys elsewhere is built from the same parts.
 */
const OWN_TENANT_PREFIX = 'tn_';
const OWN_TENANT_HEX_DIGITS = 20;
export const ownTenantId = (keyHash: string): string => `${OWN_TENANT_PREFIX}${keyHash.slice(0, OWN_TENANT_HEX_DIGITS)}`;
/** The whole of a tenant id ownTenantId makes. */
export const OWN_TENANT_ID = new RegExp(`^${OWN_TENANT_PREFIX}[0-9a-f]{${OWN_TENANT_HEX_DIGITS}}$`);

export function createTenantStore(db: Db) {
  const insertTenant = db.prepare(
    `INSERT OR IGNORE INTO tenants (id, created_at_ms, clock_anchor_wall_ms, clock_anchor_virtual_ms, cursor_key)
     VALUES (?, ?, ?, ?, ?)`,
  );
  const insertKey = db.prepare(
    'INSERT OR IGNORE INTO api_keys (key_hash, key_id, tenant_id, created_at_ms) VALUES (?, ?, ?, ?)',
  );
  const keyTenant = db.prepare<[string], { tenant_id: string; key_id: string }>(
    'SELECT tenant_id, key_id FROM api_keys WHERE key_hash = ?',
  );
  const moveKey = db.prepare('UPDATE api_keys SET tenant_id = ? WHERE key_hash = ?');
  const strays = db.prepare<[], { key_hash: string }>(
    `SELECT key_hash FROM api_keys WHERE tenant_id != '${OWN_TENANT_PREFIX}' || substr(key_hash, 1, ${OWN_TENANT_HEX_DIGITS})`,
  ).pluck();
  const setCursorKey = db.prepare('UPDATE tenants SET cursor_key = ? WHERE id = ?');
  const updateClock = db.prepare(
    `UPDATE tenants SET clock_mode = ?, clock_scale = ?, clock_anchor_wall_ms = ?, clock_anchor_virtual_ms = ?
     WHERE id = ?`,
  );

  return {
    /** Registers the key (and its tenant) on first use; answers the tenant the key belongs to. */
    register: db.transaction(
      (keyHash: string, keyId: string, tenantId: string, wallMs: number): { tenantId: string; keyId: string } => {
        insertTenant.run(tenantId, wallMs, wallMs, wallMs, randomBytes(32).toString('hex'));
        insertKey.run(keyHash, keyId, tenantId, wallMs);
        const row = keyTenant.get(keyHash)!;
        return { tenantId: row.tenant_id, keyId: row.key_id };
      },
    ),
    /** Registered keys whose tenant is not their open-mode one, by hash. */
    notInOwnTenant(): string[] {
      return strays.all() as unknown as string[];
    },
    /**
     * Moves each registered key to the tenant wanted for it (made if new), in the caller's
     * transaction; keys not registered yet are left to register on first use. Answers the moves.
     */
    moveKeys(wanted: readonly { keyHash: string; tenantId: string }[], wallMs: number): KeyMove[] {
      const moves: KeyMove[] = [];
      for (const { keyHash, tenantId } of wanted) {
        const row = keyTenant.get(keyHash);
        if (!row || row.tenant_id === tenantId) continue;
        insertTenant.run(tenantId, wallMs, wallMs, wallMs, randomBytes(32).toString('hex'));
        moveKey.run(tenantId, keyHash);
        moves.push({ keyId: row.key_id, from: row.tenant_id, to: tenantId });
      }
      return moves;
    },
    setClock(tenantId: string, row: ClockRow): void {
      updateClock.run(row.mode, row.scale, row.anchorWallMs, row.anchorVirtualMs, tenantId);
    },
    setCursorKey(tenantId: string, key: string | null): void {
      setCursorKey.run(key, tenantId);
    },
  };
}
