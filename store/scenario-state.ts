import type { Db } from './db.js';

/** Which version of its scenario-file entry each tenant was given (server/domain/control/scenarios.ts). */
export function createScenarioStateStore(db: Db) {
  const get = db.prepare<[string], { entry_sha256: string }>('SELECT entry_sha256 FROM scenario_applied WHERE tenant_id = ?');
  const set = db.prepare('INSERT OR REPLACE INTO scenario_applied (tenant_id, entry_sha256, applied_at_ms) VALUES (?, ?, ?)');
  return {
    appliedSha256(tenantId: string): string | undefined {
      return get.get(tenantId)?.entry_sha256;
    },
    recordApplied(tenantId: string, sha256: string, wallMs: number): void {
      set.run(tenantId, sha256, wallMs);
    },
  };
}
