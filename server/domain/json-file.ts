import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, type Stats } from 'node:fs';
import { nestsTooDeep, TOO_DEEP } from './json-text.js';

/** How much a file's reader takes in one read. */
const READ_BYTES = 1 << 20;

/** A bound on a file's size and the setting that gives it, for the message of a file over it. */
export interface SizeLimit {
  maxBytes: number;
  setting: string;
}

type Fail = (message: string) => Error;

/** What a file that is not a regular one is; a socket never gets this far, since it cannot be opened. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  return stats.isFIFO() ? 'a FIFO' : 'a device';
}

/**
 * A regular file's bytes, a block at a time, never reading more than the limit and one byte: a
 * FIFO or a device (such as /dev/zero) could be read forever, and a file can grow while it is
 * read, so the size fstat answers is checked but not trusted. It is opened without blocking, so a
 * FIFO does not hold the start waiting for a writer, and checked once open, so nothing put in its
 * place after the check is read. Nothing is opened before the first block is asked for.
 */
export function* regularFileBlocks(path: string, limit: SizeLimit, fail: Fail): Generator<Buffer> {
  const over = (bytes: string) => fail(`${path}: ${bytes} bytes is over ${limit.setting} (${limit.maxBytes})`);
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw fail(`${path}: cannot read: ${kindOf(stats)}, not a regular file`);
    if (stats.size > limit.maxBytes) throw over(String(stats.size));
    for (let total = 0; ;) {
      const part = Buffer.allocUnsafe(Math.min(READ_BYTES, limit.maxBytes + 1 - total));
      const read = readSync(fd, part, 0, part.length, null);
      if (read === 0) return;
      total += read;
      if (total > limit.maxBytes) throw over(`more than ${limit.maxBytes}`);
      yield part.subarray(0, read);
    }
  } catch (err) {
    // The system's errors (ENOENT; ENXIO, a socket) do not say which file: the message does.
    throw (err as NodeJS.ErrnoException).code ? fail(`${path}: cannot read: ${(err as Error).message}`) : err;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The file's text and its value; any failure becomes the caller's own error, naming the file. */
function parseFile(path: string, fail: Fail): { text: string; value: unknown } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw fail(`${path}: cannot read: ${(err as Error).message}`);
  }
  try {
    return { text, value: JSON.parse(text) };
  } catch (err) {
    throw fail(`${path}: not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Reads a JSON file an operator named (a catalog, a scenario). Any failure becomes the caller's
 * own error type, with the file in the message, so a start-up mistake reads as one line. A
 * snapshot, which can be larger than one string, is read a block at a time (regularFileBlocks).
 */
export function readJsonFile(path: string, fail: Fail): unknown {
  const { text, value } = parseFile(path, fail);
  if (nestsTooDeep(text)) throw fail(`${path}: ${TOO_DEEP}`);
  return value;
}

/**
 * Reads a JSON file the package ships (the built-in catalog), whose depth the tests check once
 * (test/domain/catalog.test.ts): the character scan, run before the JIT has seen it, took 1-2 ms
 * of every start for 18 KB that no operator can change.
 */
export function readShippedJsonFile(path: string, fail: Fail): unknown {
  return parseFile(path, fail).value;
}
