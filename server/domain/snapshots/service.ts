import { statSync } from 'node:fs';
import { Snapshot, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, upgradeSnapshot, type SnapshotDocument } from '../../../openapi/snapshot.js';
import { SnapshotRowError, type SnapshotTable, type SnapshotTables } from '../../../store/snapshot.js';
import { packageVersion } from '../../boot/package-info.js';
import { isoTime } from '../clock.js';
import type { DomainContext } from '../context.js';
import { badRequest, DomainError } from '../errors.js';
import { readJsonFile } from '../json-file.js';
import { checkSnapshot } from './checks.js';
import { forkSnapshot } from './fork.js';

/** A --restore file that cannot be restored: a start-up mistake, like a bad flag. */
export class SnapshotFileError extends Error {
  override name = 'SnapshotFileError';
}

/** What a restore answers: the rows it wrote per table. */
export type RestoredRows = Record<SnapshotTable, number>;

/**
 * A tenant's whole state out as one document and back in (docs/snapshots.md). Each is one unit
 * of work: the export sees one committed state, the restore replaces the tenant's or changes nothing.
 */
export function createSnapshotService(deps: DomainContext) {
  const { store, units, clock } = deps;
  return {
    /** Everything the tenant owns, materialised up to now first so the rows are the state the reads answer. */
    snapshot(tenantId: string): SnapshotDocument {
      return units.atNow(tenantId, (unit) => {
        unit.everyWorkload();
        // The mode and scale in force, not the row's nulls: on a server with other defaults the
        // restored clock still runs as this one did.
        const { mode, scale } = clock.view(tenantId);
        return {
          format: SNAPSHOT_FORMAT,
          version: SNAPSHOT_VERSION,
          created_at: isoTime(clock.wallNow()),
          mock_version: packageVersion(),
          tenant: {
            clock: { mode, scale, now_ms: unit.nowMs },
            id: tenantId,
            cursor_key: store.tenants.cursorKey(tenantId),
            // The rows are the store's own; the JSON Schema test checks they are what the format says.
            tables: store.snapshot.read(tenantId) as unknown as SnapshotDocument['tenant']['tables'],
          },
        };
      });
    },

    /**
     * Deletes the tenant's state as reset does and writes the document's in its place, its clock
     * resuming at the document's virtual time; into a tenant other than the one it was taken from,
     * with its ids made the target's own (forkSnapshot). A document the checks refuse changes
     * nothing; a row the database refuses (an id another tenant holds) is a 400 naming it, and
     * the whole restore rolls back.
     */
    restore(tenantId: string, doc: SnapshotDocument): RestoredRows {
      const current = upgradeSnapshot(doc);
      checkSnapshot(current);
      const forked = forkSnapshot(current, tenantId);
      const { clock: saved, cursor_key: cursorKey } = forked.tenant;
      const tables = forked.tenant.tables as SnapshotTables;
      return units.atNow(tenantId, (unit) => {
        store.reset.deleteTenantData(tenantId);
        unit.restoreClock(saved.mode, saved.scale, saved.now_ms);
        store.tenants.setCursorKey(tenantId, cursorKey);
        try {
          store.snapshot.insert(tenantId, tables);
        } catch (err) {
          if (!(err instanceof SnapshotRowError)) throw err;
          const path = ['body.tenant.tables', err.table, err.index, ...(err.column ? [err.column] : [])].join('.');
          const reason = err.column ? 'is already taken on this server (by another tenant, or twice in this snapshot)' : `is refused: ${err.message}`;
          throw badRequest('invalid_snapshot', `${path}: ${reason}`);
        }
        return Object.fromEntries(Object.entries(tables).map(([table, rows]) => [table, rows.length])) as RestoredRows;
      });
    },

    /** `--restore FILE`: the file checked as PUT /_mock/snapshot checks its body, then restored. */
    restoreFile(tenantId: string, path: string): RestoredRows {
      const fail = (message: string) => new SnapshotFileError(message);
      let size = 0;
      try {
        size = statSync(path).size;
      } catch (err) {
        throw fail(`${path}: cannot read: ${(err as Error).message}`);
      }
      if (size > deps.config.maxSnapshotBytes) throw fail(`${path}: ${size} bytes is over --max-snapshot-bytes (${deps.config.maxSnapshotBytes})`);
      const parsed = Snapshot.safeParse(readJsonFile(path, fail));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw fail(`${path}: ${['file', ...issue.path].join('.')}: ${issue.message}`);
      }
      try {
        return this.restore(tenantId, parsed.data);
      } catch (err) {
        throw err instanceof DomainError ? fail(`${path}: ${err.message.replace(/^body\./, 'file.')}`) : err;
      }
    },
  };
}
