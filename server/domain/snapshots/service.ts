import { setImmediate } from 'node:timers/promises';
import { SNAPSHOT_FORMAT, SNAPSHOT_VERSION, upgradeRow, upgradeSnapshot, type SnapshotDocument } from '../../../openapi/snapshot.js';
import { SNAPSHOT_TABLES, SnapshotRowError, type SnapshotReader, type SnapshotRow, type SnapshotTable } from '../../../store/snapshot.js';
import { packageVersion } from '../../boot/package-info.js';
import { isoTime } from '../clock.js';
import type { DomainContext } from '../context.js';
import { badRequest, DomainError } from '../errors.js';
import { regularFileBlocks } from '../json-file.js';
import { createSnapshotChecks } from './checks.js';
import { snapshotFork } from './fork.js';
import { readSnapshot } from './reader.js';

/** A --restore file that cannot be restored: a start-up mistake, like a bad flag. */
export class SnapshotFileError extends Error {
  override name = 'SnapshotFileError';
}

/** What a restore answers: the rows it wrote per table. */
export type RestoredRows = Record<SnapshotTable, number>;

/** The document without its tables: what the export knows before it reads any row. */
export type SnapshotHead = Omit<SnapshotDocument, 'tenant'> & { tenant: Omit<SnapshotDocument['tenant'], 'tables'> };

/** An export under way: the head, then the tables' rows of one committed state, read as they are asked for. */
export interface SnapshotExport {
  head: SnapshotHead;
  tables: SnapshotReader['tables'];
  /** Ends the read: once the rows are sent, or given up. */
  close(): void;
}

/** The wall time a restore checks rows before it lets other requests run. */
const SLICE_MS = 10;

const TABLES = Object.keys(SNAPSHOT_TABLES) as SnapshotTable[];

/**
 * A tenant's whole state out as one document and back in (docs/snapshots.md). The export reads one
 * committed state while other requests go on; the restore is one unit of work that replaces the
 * tenant's state or changes nothing.
 */
export function createSnapshotService(deps: DomainContext) {
  const { store, units, clock } = deps;
  return {
    /**
     * Everything the tenant owns, every unsettled workload materialised up to now first so the
     * rows are the state the reads answer. That is a unit of work per slice of workloads, the
     * event loop turning between them; the rows are then read from the state the last unit
     * committed, on a reader of their own, while the server goes on serving and writing.
     */
    async snapshot(tenantId: string): Promise<SnapshotExport> {
      await units.everyWorkloadInSlices(tenantId);
      const head = units.atNow(tenantId, (unit): SnapshotHead => {
        // The mode and scale in force, not the row's nulls: on a server with other defaults the
        // restored clock still runs as this one did.
        const { mode, scale } = clock.view(tenantId);
        return {
          format: SNAPSHOT_FORMAT,
          version: SNAPSHOT_VERSION,
          created_at: isoTime(clock.wallNow()),
          mock_version: packageVersion(),
          tenant: { clock: { mode, scale, now_ms: unit.nowMs }, id: tenantId, cursor_key: store.tenants.cursorKey(tenantId) },
        };
      });
      // In the same turn as the unit above, so nothing commits in between: the rows are the state it read.
      const reader = store.snapshot.openReader(tenantId);
      return { head, tables: () => reader.tables(), close: () => reader.close() };
    },

    /**
     * Deletes the tenant's state as reset does and writes the document's in its place, its clock
     * resuming at the document's virtual time; into a tenant other than the one it was taken from,
     * with its ids made the target's own (snapshotFork). The document is read from its bytes as
     * they arrive, each row validated and spooled to a file (readSnapshot); then the head and
     * every row are checked, the event loop turning between batches; then one unit of work
     * writes the rows, read back from the files one at a time. A document the checks refuse
     * changes nothing; a row the database refuses (an id another tenant holds) is a 400 naming
     * it, and the whole restore rolls back. The files are gone when this settles.
     */
    async restore(tenantId: string, bytes: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, root: 'body' | 'file' = 'body'): Promise<RestoredRows> {
      const spooled = await readSnapshot(bytes, root);
      try {
        const current = upgradeSnapshot(spooled.head);
        // Each row as the newest version holds it: the checks see it so, and the inserts write it so.
        const rowsOf = function* (table: SnapshotTable) {
          let index = 0;
          for (const row of spooled.rows(table)) {
            const upgraded = upgradeRow(spooled.head.version, table, row);
            if ('reason' in upgraded) throw badRequest('invalid_snapshot', `body.tenant.tables.${table}.${index}.${upgraded.column}: ${upgraded.reason}`);
            index++;
            yield upgraded.row as SnapshotRow;
          }
        };
        const checks = createSnapshotChecks(current.tenant.clock);
        let turned = performance.now();
        for (const table of TABLES) {
          let index = 0;
          for (const row of rowsOf(table)) {
            checks.row(table, index++, row as never);
            if ((index & 0xff) === 0 && performance.now() - turned > SLICE_MS) {
              await setImmediate();
              turned = performance.now();
            }
          }
        }
        checks.finish();
        const fork = snapshotFork(current.tenant, tenantId);
        const forked = function* (table: SnapshotTable) {
          for (const row of rowsOf(table)) yield fork ? fork.row(table, row) : row;
        };
        const tables = Object.fromEntries(TABLES.map((table) => [table, forked(table)])) as unknown as Record<SnapshotTable, Iterable<SnapshotRow>>;
        return units.atNow(tenantId, (unit) => {
          store.reset.deleteTenantData(tenantId);
          const { clock: saved } = current.tenant;
          unit.restoreClock(saved.mode, saved.scale, saved.now_ms);
          store.tenants.setCursorKey(tenantId, fork ? fork.cursorKey : current.tenant.cursor_key);
          try {
            return store.snapshot.insert(tenantId, tables);
          } catch (err) {
            if (!(err instanceof SnapshotRowError)) throw err;
            const path = ['body.tenant.tables', err.table, err.index, ...(err.column ? [err.column] : [])].join('.');
            const reason = err.column ? 'is already taken on this server (by another tenant, or twice in this snapshot)' : `is refused: ${err.message}`;
            throw badRequest('invalid_snapshot', `${path}: ${reason}`);
          }
        });
      } finally {
        spooled.remove();
      }
    },

    /** `--restore FILE`: a regular file within --max-snapshot-bytes, read and restored as PUT /_mock/snapshot reads its body. */
    async restoreFile(tenantId: string, path: string): Promise<RestoredRows> {
      const fail = (message: string) => new SnapshotFileError(message);
      const limit = { maxBytes: deps.config.maxSnapshotBytes, setting: '--max-snapshot-bytes' };
      try {
        return await this.restore(tenantId, regularFileBlocks(path, limit, fail), 'file');
      } catch (err) {
        throw err instanceof DomainError ? fail(`${path}: ${err.message.replace(/^body\./, 'file.')}`) : err;
      }
    },
  };
}
