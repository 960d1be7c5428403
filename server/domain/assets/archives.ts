import { createGunzip } from 'node:zlib';
import type { ArchiveKind } from '../../../store/assets.js';
import { DomainError } from '../errors.js';

/**
 * The archive checks the real service applies to uploads and imports: an archive (tar, tar.gz or zip, known by its
 * name) may hold regular files and directories only, no links, devices or FIFOs, at safe relative
 * paths, and at most MAX_ARCHIVE_ENTRIES of them. Listing needs only the headers: a tar is read
 * header by header, skipping the contents (a tar.gz is inflated as a stream, nothing of it kept),
 * a zip by its central directory. Written here rather than taken from a package: these are the
 * few fields of two stable formats, and every rule applied to them is the contract's.
 */

export const MAX_ARCHIVE_ENTRIES = 10_000;

export interface ArchiveEntry {
  path: string;
  type: 'file' | 'directory';
  bytes: number;
}

/** The archive a file name says it is, or null for a plain file. */
export function archiveKindOf(name: string): ArchiveKind | null {
  const lower = name.toLowerCase();
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  if (lower.endsWith('.tar')) return 'tar';
  if (lower.endsWith('.zip')) return 'zip';
  return null;
}

const malformed = (name: string, why: string) => new DomainError('invalid', 'invalid_archive', `${name} is not a readable archive: ${why}`);
const unsafe = (path: string, why: string) => new DomainError('invalid', 'unsafe_archive', `archive member "${path}" ${why}; archives may hold only regular files and directories at relative paths`);

/** A relative path that stays inside the extraction folder, normalised (no `./`, no trailing `/`). */
function safePath(raw: string): string {
  const shown = raw.replace(/\p{Cc}/gu, '?');
  if (raw.includes('\0') || /\p{Cc}/u.test(raw)) throw unsafe(shown, 'has a control character in its path');
  if (raw.includes('\\')) throw unsafe(shown, 'has a backslash in its path');
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) throw unsafe(shown, 'has an absolute path');
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw unsafe(shown, 'climbs out of the archive with ..');
  if (segments.length === 0) throw unsafe(shown || '(empty)', 'has an empty path');
  return segments.join('/');
}

class EntryList {
  readonly entries: ArchiveEntry[] = [];
  add(rawPath: string, type: ArchiveEntry['type'], bytes: number): void {
    if (this.entries.length >= MAX_ARCHIVE_ENTRIES) {
      throw new DomainError('invalid', 'too_many_files', `the archive holds more than ${MAX_ARCHIVE_ENTRIES} entries`);
    }
    this.entries.push({ path: safePath(rawPath), type, bytes });
  }
}

// ---------------------------------------------------------------------------------------------
// tar (POSIX ustar, with pax and GNU long-name headers)

const BLOCK = 512;
/** pax and GNU long-name records are small; a larger one is not a header anyone meant. */
const MAX_META_BYTES = 1024 * 1024;

const text = (block: Buffer, start: number, length: number) => {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString('utf8');
};

function numeric(block: Buffer, start: number, length: number, name: string): number {
  const field = block.subarray(start, start + length);
  if (field[0] & 0x80) {
    // base-256, for values that do not fit the octal digits
    let value = field[0] & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i];
    return value;
  }
  const digits = field.toString('latin1').replace(/\0.*$/s, '').trim();
  if (!/^[0-7]*$/.test(digits)) throw malformed(name, 'a header field is not an octal number');
  return digits === '' ? 0 : parseInt(digits, 8);
}

function checksumOk(block: Buffer, name: string): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  return sum === numeric(block, 148, 8, name);
}

/** pax records: `<length> <key>=<value>\n`, one after another. */
function paxRecords(data: Buffer, name: string): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length = space === -1 ? NaN : Number(data.subarray(at, space).toString('latin1'));
    if (!Number.isInteger(length) || length <= 0 || at + length > data.length) throw malformed(name, 'a pax header record is malformed');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq === -1) throw malformed(name, 'a pax header record has no =');
    records.set(record.slice(0, eq), record.slice(eq + 1));
    at += length;
  }
  return records;
}

const LINK_TYPES: Record<string, string> = { '1': 'is a hard link', '2': 'is a symbolic link' };
const SPECIAL_TYPES: Record<string, string> = { '3': 'is a character device', '4': 'is a block device', '6': 'is a FIFO' };

/** Reads tar headers from chunks as they come, skipping file contents. */
class TarReader {
  private readonly list = new EntryList();
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** What the bytes being collected are: a header block, or the data of a meta header. */
  private want: { kind: 'header' } | { kind: 'meta'; type: string; size: number } = { kind: 'header' };
  /** Content and padding bytes still to skip. */
  private skip = 0;
  private override: { path?: string; size?: number } = {};
  private ended = false;
  private zeroBlocks = 0;

  constructor(private readonly name: string) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !this.ended) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, chunk.length - at);
        this.skip -= n;
        at += n;
        continue;
      }
      const need = (this.want.kind === 'header' ? BLOCK : padded(this.want.size)) - this.pendingBytes;
      const piece = chunk.subarray(at, at + need);
      this.pending.push(piece);
      this.pendingBytes += piece.length;
      at += piece.length;
      if (piece.length === need) {
        const whole = Buffer.concat(this.pending);
        this.pending = [];
        this.pendingBytes = 0;
        if (this.want.kind === 'header') this.header(whole);
        else this.meta(this.want.type, whole.subarray(0, this.want.size));
      }
    }
  }

  end(): ArchiveEntry[] {
    if (this.pendingBytes > 0 || this.skip > 0 || this.want.kind !== 'header') throw malformed(this.name, 'it ends in the middle of a member');
    if (this.list.entries.length === 0 && this.zeroBlocks === 0) throw malformed(this.name, 'it holds no tar header');
    return this.list.entries;
  }

  private header(block: Buffer): void {
    if (block.every((b) => b === 0)) {
      // Two zero blocks end the archive; whatever follows (tar pads to a record size) is padding.
      if (++this.zeroBlocks === 2) this.ended = true;
      return;
    }
    if (this.zeroBlocks > 0) throw malformed(this.name, 'a header follows the end-of-archive block');
    if (!checksumOk(block, this.name)) throw malformed(this.name, 'a header checksum does not match');
    const type = String.fromCharCode(block[156] || 0x30);
    const size = this.override.size ?? numeric(block, 124, 12, this.name);
    if (type === 'x' || type === 'g' || type === 'L' || type === 'K') {
      if (size > MAX_META_BYTES) throw malformed(this.name, 'an extended header is larger than 1 MiB');
      this.want = { kind: 'meta', type, size };
      return;
    }
    const prefix = block.subarray(257, 262).toString('latin1') === 'ustar' ? text(block, 345, 155) : '';
    const path = this.override.path ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
    this.override = {};
    if (LINK_TYPES[type]) throw unsafe(path, LINK_TYPES[type]);
    if (SPECIAL_TYPES[type]) throw unsafe(path, SPECIAL_TYPES[type]);
    if (type === '5') {
      this.list.add(path, 'directory', 0);
    } else if (type === '0' || type === '7') {
      this.list.add(path, 'file', size);
    } else {
      throw unsafe(path, `has tar type "${type}", which is not a regular file or directory`);
    }
    this.skip = padded(size);
  }

  private meta(type: string, data: Buffer): void {
    this.want = { kind: 'header' };
    if (type === 'g') return; // global defaults: nothing the checks need
    if (type === 'L') {
      this.override.path = data.toString('utf8').replace(/\0+$/, '');
      return;
    }
    if (type === 'K') return; // a long link target: the link itself is refused when its header comes
    const records = paxRecords(data, this.name);
    const path = records.get('path');
    if (path !== undefined) this.override.path = path;
    const size = records.get('size');
    if (size !== undefined) {
      if (!/^[0-9]+$/.test(size)) throw malformed(this.name, 'a pax size is not a number');
      this.override.size = Number(size);
    }
  }
}

const padded = (size: number) => Math.ceil(size / BLOCK) * BLOCK;

async function listTar(data: Buffer, name: string, gzip: boolean, maxExpandedBytes: number): Promise<ArchiveEntry[]> {
  const reader = new TarReader(name);
  if (!gzip) {
    reader.push(data);
    return reader.end();
  }
  // Inflated as a stream and read as it comes, so not even a bomb's output is held.
  return new Promise((resolve, reject) => {
    const gunzip = createGunzip();
    let expanded = 0;
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      gunzip.destroy();
      reject(err instanceof DomainError ? err : malformed(name, `it does not inflate as gzip (${(err as Error).message})`));
    };
    gunzip.on('data', (chunk: Buffer) => {
      expanded += chunk.length;
      try {
        if (expanded > maxExpandedBytes) throw new DomainError('invalid', 'archive_too_large', `${name} inflates to more than ${maxExpandedBytes} bytes`);
        reader.push(chunk);
      } catch (err) {
        fail(err);
      }
    });
    gunzip.on('error', fail);
    gunzip.on('end', () => {
      if (failed) return;
      try {
        resolve(reader.end());
      } catch (err) {
        fail(err);
      }
    });
    gunzip.end(data);
  });
}

// ---------------------------------------------------------------------------------------------
// zip (the central directory, zip64 included)

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const UNIX_HOST = 3;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

function listZip(data: Buffer, name: string): ArchiveEntry[] {
  const bad = (why: string) => malformed(name, why);
  let eocd = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 0xffff); i--) {
    if (data.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd === -1) throw bad('no zip end-of-central-directory record');
  let count = data.readUInt16LE(eocd + 10);
  let offset = data.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || data.readUInt32LE(locator) !== ZIP64_LOCATOR) throw bad('a zip64 archive without its locator');
    const at = Number(data.readBigUInt64LE(locator + 8));
    if (at + 56 > data.length || data.readUInt32LE(at) !== ZIP64_EOCD) throw bad('a zip64 end record out of place');
    count = Number(data.readBigUInt64LE(at + 32));
    offset = Number(data.readBigUInt64LE(at + 48));
  }
  if (count > MAX_ARCHIVE_ENTRIES) throw new DomainError('invalid', 'too_many_files', `the archive holds more than ${MAX_ARCHIVE_ENTRIES} entries`);
  const list = new EntryList();
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > data.length || data.readUInt32LE(at) !== CENTRAL) throw bad('the central directory is cut short');
    const host = data[at + 5];
    const flags = data.readUInt16LE(at + 8);
    let size = data.readUInt32LE(at + 24);
    const nameLength = data.readUInt16LE(at + 28);
    const extraLength = data.readUInt16LE(at + 30);
    const commentLength = data.readUInt16LE(at + 32);
    const mode = data.readUInt32LE(at + 38) >>> 16;
    const end = at + 46 + nameLength + extraLength + commentLength;
    if (end > data.length) throw bad('the central directory is cut short');
    const rawName = data.subarray(at + 46, at + 46 + nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1');
    if (size === 0xffffffff) size = zip64Size(data.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength)) ?? size;
    const type = host === UNIX_HOST ? mode & S_IFMT : 0;
    if (type === S_IFLNK) throw unsafe(rawName, 'is a symbolic link');
    if (type !== 0 && type !== S_IFREG && type !== S_IFDIR) throw unsafe(rawName, 'is a special file');
    const directory = rawName.endsWith('/') || type === S_IFDIR;
    list.add(rawName, directory ? 'directory' : 'file', directory ? 0 : size);
    at = end;
  }
  return list.entries;
}

/** The uncompressed size in a zip64 extra field (header 0x0001), whose first value it is. */
function zip64Size(extra: Buffer): number | undefined {
  for (let at = 0; at + 4 <= extra.length;) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === 0x0001 && length >= 8 && at + 12 <= extra.length) return Number(extra.readBigUInt64LE(at + 4));
    at += 4 + length;
  }
  return undefined;
}

/** The members of an archive, or the 400 that says what is wrong with it. */
export async function listArchive(kind: ArchiveKind, data: Buffer, name: string, maxExpandedBytes: number): Promise<ArchiveEntry[]> {
  if (kind === 'zip') return listZip(data, name);
  return listTar(data, name, kind === 'tar.gz', maxExpandedBytes);
}
