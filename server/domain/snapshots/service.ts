import { setImmediate } from 'node:timers/promises';
import { snapshotColumns, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, SnapshotTenant, upgradeSnapshot, type SnapshotDocument } from '../../../openapi/snapshot.js';
import { SNAPSHOT_TABLES, SnapshotRowError, type HeldSubstitutes, type SnapshotReader, type SnapshotTable, type SnapshotValues } from '../../../store/snapshot.js';
import { packageVersion } from '../../boot/package-info.js';
import { isoTime } from '../clock.js';
import type { DomainContext } from '../context.js';
import type { TenantUnit } from '../unit.js';
import { badRequest, DomainError } from '../errors.js';
import { regularFileBlocks } from '../json-file.js';
import { createSnapshotChecks, type CheckSettings, type SnapshotChecks } from './checks.js';
import { forkCanChange, snapshotFork, type SnapshotFork } from './fork.js';
import { HELD_CHARS, readSnapshot, SLICE_MS, type SnapshotWatch, type SpooledSnapshot } from './reader.js';

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

const TABLES = Object.keys(SNAPSHOT_TABLES) as SnapshotTable[];
const POSITION = new Map(TABLES.map((table, i) => [table, i]));

type Chunks = Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

/** A document whose checks passed, its rows held in memory, and its bytes. */
interface Checked {
  bytes: Buffer;
  spooled: SpooledSnapshot;
  /**
   * Its rows as the store holds them too (TenantUnit.holdSnapshot), and per table and column the
   * texts a fork can change (forkCanChange): a restore copies the rest as they are.
   */
  held?: { id: number; forkable: Map<SnapshotTable, Map<string, Set<string>>> };
}

/**
 * Whether `chunks` are `checked`'s bytes again: read while they match, compared as they arrive.
 * Otherwise the chunks to read the document from (those compared, then the rest), which also
 * gathers them while they are few enough to keep; and their iterator closes its source when the
 * reader leaves early.
 */
async function sameAgain(chunks: Chunks, checked: Checked | undefined) {
  const source = Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : chunks[Symbol.iterator]();
  const taken: Uint8Array[] = [];
  let size = 0;
  let same = checked !== undefined;
  for (;;) {
    if (!same) break;
    const next = await source.next();
    if (next.done) {
      if (size === checked!.bytes.length) return { again: true as const };
      break;
    }
    const chunk = next.value;
    taken.push(chunk);
    same = size + chunk.length <= checked!.bytes.length && checked!.bytes.compare(chunk, 0, chunk.length, size, size + chunk.length) === 0;
    size += chunk.length;
  }
  const gathered = { chunks: taken as Uint8Array[] | undefined, size };
  const rest = async function* () {
    try {
      for (const chunk of taken) yield chunk;
      for (let next = await source.next(); !next.done; next = await source.next()) {
        if (gathered.chunks && (gathered.size += next.value.length) <= HELD_CHARS) gathered.chunks.push(next.value);
        else gathered.chunks = undefined;
        yield next.value;
      }
    } finally {
      await source.return?.();
    }
  };
  if (gathered.size > HELD_CHARS) gathered.chunks = undefined;
  return { again: false as const, chunks: rest(), gathered };
}

/**
 * The checks of a restore (checks.ts), run on each row as the reader takes it when the document
 * allows: its clock comes before its rows and its tables in the order the checks take them
 * (TABLES), as in every document the server writes. Otherwise they run once the document is read,
 * over the spooled rows. A problem found early is thrown only after the document is read and its
 * head checked, so the answer is the one checking after the read would give: the reader's
 * refusals come first, then the head's, then the first row's in TABLES order.
 */
function restoreChecks(settings: CheckSettings) {
  let checks: SnapshotChecks | undefined;
  let early = true;
  let failure: { error: unknown } | undefined;
  let position = 0;
  const watch: SnapshotWatch = {
    clock(value) {
      const clock = SnapshotTenant.shape.clock.safeParse(value);
      if (!clock.success) early = false;
      if (!early) return;
      try {
        checks = createSnapshotChecks(clock.data!, settings);
      } catch (error) {
        failure = { error };
      }
    },
    row(table, index, row) {
      if (!early || failure) return;
      const at = POSITION.get(table)!;
      if (!checks || at < position) {
        early = false;
        return;
      }
      position = at;
      try {
        checks.row(table, index, row as never);
      } catch (error) {
        failure = { error };
      }
    },
  };
  return {
    watch,
    /** Throws the first problem of the document, whose head the reader has checked. */
    async finish(spooled: SpooledSnapshot, clock: SnapshotDocument['tenant']['clock']): Promise<void> {
      if (early && failure) throw failure.error;
      if (!early || !checks) {
        checks = createSnapshotChecks(clock, settings);
        let turned = performance.now();
        for (const table of TABLES) {
          const columns = snapshotColumns()[table];
          let index = 0;
          for (const values of spooled.rows(table)) {
            checks.row(table, index++, Object.fromEntries(columns.map((column, i) => [column, values[i]])) as never);
            if ((index & 0xff) === 0 && performance.now() - turned > SLICE_MS) {
              await setImmediate();
              turned = performance.now();
            }
          }
        }
      }
      checks.finish();
    },
  };
}

/**
 * A tenant's whole state out as one document and back in (docs/snapshots.md). The export reads one
 * committed state while other requests go on; the restore is one unit of work that replaces the
 * tenant's state or changes nothing.
 */
export function createSnapshotService(deps: DomainContext) {
  const { units, clock } = deps;
  /**
   * The last document read whose checks passed, while it is small enough to hold (HELD_CHARS): a
   * baseline forked into tenant after tenant sends the same bytes each time, which then skip the
   * reading and the checks (docs/snapshots.md, Forking). The checks depend on nothing but the
   * document and this server's settings.
   */
  let checked: Checked | undefined;

  /** The document's head and rows: those of `checked` when the bytes are its own, else read and checked. */
  const readChecked = async (bytes: Chunks, root: 'body' | 'file'): Promise<{ spooled: SpooledSnapshot; kept?: Checked }> => {
    const known = checked;
    const read = await sameAgain(bytes, known);
    if (read.again) return { spooled: known!.spooled, kept: known };
    const checks = restoreChecks(deps.config);
    const spooled = await readSnapshot(read.chunks, root, checks.watch);
    try {
      await checks.finish(spooled, upgradeSnapshot(spooled.head).tenant.clock);
    } catch (err) {
      spooled.remove();
      throw err;
    }
    const { chunks } = read.gathered;
    if (!spooled.held || !chunks) return { spooled };
    checked = { bytes: Buffer.concat(chunks), spooled };
    return { spooled, kept: checked };
  };

  /**
   * Inside the restore's unit: holds the kept document's rows in the store unless they are held
   * already, and answers what its copy into the tenant substitutes, by `fork`. A table where a
   * text's fork depends on its row is left out, and so inserted row by row, forked as it goes.
   */
  const heldCopy = (unit: TenantUnit, kept: Checked, fork: SnapshotFork | undefined) => {
    let held = kept.held;
    if (!held || !unit.holdsSnapshot(held.id)) {
      const canChange = forkCanChange(upgradeSnapshot(kept.spooled.head).tenant.id);
      const forkable = new Map<SnapshotTable, Map<string, Set<string>>>();
      const noted = (table: SnapshotTable) => function* () {
        const columns = snapshotColumns()[table];
        for (const values of kept.spooled.rows(table)) {
          for (let i = 0; i < values.length; i++) {
            const text = values[i];
            if (typeof text !== 'string' || !canChange(text)) continue;
            let byColumn = forkable.get(table);
            if (!byColumn) forkable.set(table, (byColumn = new Map()));
            let texts = byColumn.get(columns[i]);
            if (!texts) byColumn.set(columns[i], (texts = new Set()));
            texts.add(text);
          }
          yield values;
        }
      }();
      const rows = Object.fromEntries(TABLES.map((table) => [table, noted(table)])) as unknown as Record<SnapshotTable, Iterable<SnapshotValues>>;
      held = { id: unit.holdSnapshot(snapshotColumns(), rows), forkable };
    }
    const substitutes: HeldSubstitutes = {};
    for (const table of TABLES) {
      const byColumn: Record<string, Map<string, string>> = {};
      let whole = true;
      for (const [column, texts] of fork ? held.forkable.get(table) ?? [] : []) {
        const written = new Map<string, string>();
        for (const text of texts) {
          const forked = fork!.text(text);
          if (forked === undefined) whole = false;
          else if (forked !== text) written.set(text, forked);
        }
        if (written.size > 0) byColumn[column] = written;
      }
      if (whole) substitutes[table] = byColumn;
    }
    return { held, substitutes };
  };

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
          tenant: { clock: { mode, scale, now_ms: unit.nowMs }, id: tenantId, cursor_key: unit.tables.cached.cursorKey(tenantId) },
        };
      });
      // In the same turn as the unit above, so nothing commits in between: the rows are the state it read.
      const reader = deps.snapshots.openReader(tenantId);
      return { head, tables: () => reader.tables(), close: () => reader.close() };
    },

    /**
     * Deletes the tenant's state as reset does and writes the document's in its place, its clock
     * resuming at the document's virtual time; into a tenant other than the one it was taken from,
     * with its ids made the target's own (snapshotFork). The document is read from its bytes as
     * they arrive, each row validated, checked (restoreChecks) and spooled (readSnapshot), the
     * event loop turning between pieces, unless they are the bytes of the last document checked
     * (readChecked); then one unit of work writes the rows, read back from the spool one at a
     * time. A document the checks refuse changes nothing; a row the database refuses (an id
     * another tenant holds) is a 400 naming it, and the whole restore rolls back. The files are
     * gone when this settles.
     */
    async restore(tenantId: string, bytes: Chunks, root: 'body' | 'file' = 'body'): Promise<RestoredRows> {
      const { spooled, kept } = await readChecked(bytes, root);
      let heldNow: Checked['held'];
      try {
        const current = upgradeSnapshot(spooled.head);
        const fork = snapshotFork(current.tenant, tenantId);
        const rowsOf = function* (table: SnapshotTable) {
          const columns = snapshotColumns()[table];
          for (const values of spooled.rows(table)) {
            if (!fork) yield values;
            else {
              // Kept rows are forked again for the next tenant: each fork changes a copy.
              const forked = kept ? values.slice() : values;
              fork.row(table, columns, forked);
              yield forked;
            }
          }
        };
        const tables = Object.fromEntries(TABLES.map((table) => [table, rowsOf(table)])) as unknown as Record<SnapshotTable, Iterable<SnapshotValues>>;
        const restored = units.atNow(tenantId, (unit) => {
          unit.deleteTenantData();
          const { clock: saved } = current.tenant;
          unit.restoreClock(saved.mode, saved.scale, saved.now_ms);
          unit.tables.tenants.setCursorKey(tenantId, fork ? fork.cursorKey : current.tenant.cursor_key);
          try {
            if (!kept) return unit.insertSnapshot(snapshotColumns(), tables);
            const { held, substitutes } = heldCopy(unit, kept, fork);
            heldNow = held;
            return unit.insertSnapshot(snapshotColumns(), tables, { id: held.id, substitutes });
          } catch (err) {
            if (!(err instanceof SnapshotRowError)) throw err;
            const path = ['body.tenant.tables', err.table, err.index, ...(err.column ? [err.column] : [])].join('.');
            const reason = err.column ? 'is already taken on this server (by another tenant, or twice in this snapshot)' : `is refused: ${err.message}`;
            throw badRequest('invalid_snapshot', `${path}: ${reason}`);
          }
        });
        // Committed: the rows held in this unit stay held.
        if (kept) kept.held = heldNow;
        // Megabytes of WAL: copied by the checkpointer's thread now, not inside some later commit.
        deps.snapshots.checkpointSoon();
        return restored;
      } finally {
        if (!kept) spooled.remove();
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
