import { createGunzip } from 'node:zlib';
import { DomainError } from '../errors.js';
import {
  EntryList,
  malformed,
  MAX_ARCHIVE_HEADERS,
  MAX_METADATA_BYTES,
  MAX_PAX_RECORDS,
  Slicer,
  tooMany,
  tooMuchMetadata,
  unsafe,
  utf8Name,
  utf8TextName,
  type ArchiveEntry,
} from './archive-entries.js';

/**
 * tar (POSIX ustar with pax headers, and GNU long names), read header by header with the contents
 * skipped. GNU tar, bsdtar and Python's tarfile agree on plain archives and part ways on the
 * corners (which of two long names wins, what a global header renames, sparse maps, a prefix field
 * in a GNU header, data after the end): each such corner is refused, with the member it concerns.
 */

const BLOCK = 512;
/** One extended header: a path is a few KiB at most; a larger header is not one anyone meant. */
const MAX_EXTENDED_BYTES = 64 * 1024;
/** Input handed to the reader at a time, between which the slicer may yield. */
const SLICE_BYTES = 64 * 1024;

const EXTENDED: Record<string, string> = { x: 'pax', L: 'GNU long name', K: 'GNU long link', g: 'pax global' };
const LINK_TYPES: Record<string, string> = { '1': 'is a hard link', '2': 'is a symbolic link' };
const SPECIAL_TYPES: Record<string, string> = { '3': 'is a character device', '4': 'is a block device', '6': 'is a FIFO' };
/** pax keys a global header may not set: each would rename, resize or re-map every later member in some extractors only. */
const GLOBAL_FORBIDDEN = /^(path|linkpath|size|hdrcharset|GNU\.sparse\..*)$/;

const cString = (field: Buffer) => {
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end);
};

function numeric(block: Buffer, start: number, length: number, name: string): number {
  const field = block.subarray(start, start + length);
  if (field[0] === 0x80) {
    // base-256, for values that do not fit the octal digits (0xff would be a negative one)
    let value = 0;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i];
    if (!Number.isSafeInteger(value)) throw malformed(name, 'a header number is out of range');
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

/** pax records, `<length> <key>=<value>\n` each, as GNU tar reads them: a key set twice is refused. */
function paxRecords(data: Buffer, name: string, budget: { records: number }): Map<string, Buffer> {
  const records = new Map<string, Buffer>();
  const bad = () => malformed(name, 'a pax header record is malformed');
  let at = 0;
  while (at < data.length) {
    if (--budget.records < 0) throw tooMuchMetadata(name);
    let length = 0;
    let i = at;
    for (; i < data.length && i - at < 8 && data[i] >= 0x30 && data[i] <= 0x39; i++) length = length * 10 + data[i] - 0x30;
    if (i === at || data[i] !== 0x20 || length <= i - at + 1 || at + length > data.length || data[at + length - 1] !== 0x0a) throw bad();
    const eq = data.indexOf(0x3d, i + 1);
    if (eq <= i + 1 || eq >= at + length - 1) throw malformed(name, 'a pax header record has no key=');
    const key = data.toString('latin1', i + 1, eq);
    if (records.has(key)) throw malformed(name, `a pax header sets "${key}" twice`);
    records.set(key, data.subarray(eq + 1, at + length - 1));
    at += length;
  }
  return records;
}

/** An extended header waiting for the member it describes. */
interface Extended {
  type: string;
  path?: string;
  size?: number;
  sparse?: boolean;
}

const padded = (size: number) => Math.ceil(size / BLOCK) * BLOCK;

/** Reads tar headers from chunks as they come, skipping file contents. */
class TarReader {
  readonly list = new EntryList();
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** What the bytes being collected are: a header block, or the data of an extended header. */
  private want: { kind: 'header' } | { kind: 'meta'; type: string; size: number; header: string } = { kind: 'header' };
  /** Content and padding bytes still to skip. */
  private skip = 0;
  private extended: Extended[] = [];
  /** Past the first zero block: everything after it must be zeros too. */
  private ended = false;
  private headers = 0;
  private metadataBytes = 0;
  /** pax records left to read in all: parsing, not bytes, is what a header of tiny records costs. */
  private readonly budget = { records: MAX_PAX_RECORDS };

  constructor(private readonly name: string) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.ended) {
        // GNU tar, bsdtar and tarfile all stop at the first zero block; `tar -i` and others read on.
        if (chunk.subarray(at).some((b) => b !== 0)) throw malformed(this.name, 'non-zero data follows its end-of-archive block, which some extractors read as more members');
        return;
      }
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
        const whole = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
        this.pending = [];
        this.pendingBytes = 0;
        if (this.want.kind === 'header') this.header(whole);
        else this.meta(this.want.type, this.want.header, whole.subarray(0, this.want.size));
      }
    }
  }

  end(): ArchiveEntry[] {
    if (this.pendingBytes > 0 || this.skip > 0 || this.want.kind !== 'header') throw malformed(this.name, 'it ends in the middle of a member');
    if (this.extended.length > 0) throw malformed(this.name, `its last ${EXTENDED[this.extended[0].type]} header describes no member`);
    if (this.headers === 0 && !this.ended) throw malformed(this.name, 'it holds no tar header');
    return this.list.entries;
  }

  private header(block: Buffer): void {
    if (block.every((b) => b === 0)) {
      this.ended = true;
      return;
    }
    if (!checksumOk(block, this.name)) throw malformed(this.name, 'a header checksum does not match');
    if (++this.headers > MAX_ARCHIVE_HEADERS) throw tooMany(`${MAX_ARCHIVE_HEADERS} headers (members and their extended headers)`);
    const type = String.fromCharCode(block[156] || 0x30);
    const headerName = this.headerName(block);
    const size = numeric(block, 124, 12, this.name);
    if (EXTENDED[type]) {
      if (size > MAX_EXTENDED_BYTES) throw malformed(this.name, `the ${EXTENDED[type]} header "${headerName}" is larger than ${MAX_EXTENDED_BYTES} bytes`);
      this.metadataBytes += size;
      if (this.metadataBytes > MAX_METADATA_BYTES) throw tooMuchMetadata(this.name);
      this.want = { kind: 'meta', type, size, header: headerName };
      return;
    }
    this.member(type, headerName, size);
  }

  /** The ustar name, with the POSIX prefix field; a prefix in a GNU or pre-POSIX header is one only tarfile reads. */
  private headerName(block: Buffer): string {
    const name = utf8Name(cString(block.subarray(0, 100)), block.subarray(0, 100).toString('latin1'));
    const prefix = cString(block.subarray(345, 500));
    if (prefix.length === 0) return name;
    const joined = `${utf8Name(prefix, prefix.toString('latin1'))}/${name}`;
    if (block.subarray(257, 263).toString('latin1') !== 'ustar\0') throw unsafe(joined, 'has a ustar prefix in a header that is not POSIX ustar, which only some extractors read as part of its name');
    return joined;
  }

  private member(type: string, headerName: string, headerSize: number): void {
    const extended = this.extended;
    this.extended = [];
    const named = extended.find((e) => e.path !== undefined)?.path;
    const path = named ?? headerName;
    if (extended.length > 1) {
      const kinds = extended.map((e) => EXTENDED[e.type]).join(' and ');
      const names = extended.map((e) => e.path).filter((p) => p !== undefined);
      const why = new Set(names).size > 1 ? `names it both "${names.join('" and "')}"` : 'is more than one';
      throw unsafe(path, `has ${extended.length} extended headers (${kinds}): ${why}, and extractors disagree on which one counts`);
    }
    const pax = extended[0];
    if (pax?.sparse) throw unsafe(path, 'is a GNU sparse file (GNU.sparse.* pax records), whose name and contents extractors read differently');
    if (pax?.size !== undefined && headerSize !== 0 && pax.size !== headerSize) {
      throw unsafe(path, `has a pax size of ${pax.size} bytes and a header size of ${headerSize}`);
    }
    const size = pax?.size ?? headerSize;
    if (LINK_TYPES[type]) throw unsafe(path, LINK_TYPES[type]);
    if (SPECIAL_TYPES[type]) throw unsafe(path, SPECIAL_TYPES[type]);
    if (type === '5') {
      // tarfile reads a directory's "contents" as the next headers; GNU tar and bsdtar skip them.
      if (size > 0) throw unsafe(path, `is a directory with ${size} bytes of contents`);
      this.list.add(path === '' || path.endsWith('/') ? path : `${path}/`, 'directory', 0);
    } else if (type === '0' || type === '7') {
      if (path.endsWith('/')) throw unsafe(path, 'is a regular file whose name ends with /, which some extractors make a directory');
      this.list.add(path, 'file', size);
    } else {
      throw unsafe(path, `has tar type "${type.replace(/\p{Cc}/gu, '?')}", which is not a regular file or directory`);
    }
    this.skip = padded(size);
  }

  private meta(type: string, header: string, data: Buffer): void {
    this.want = { kind: 'header' };
    if (type === 'g') return this.global(header, data);
    const entry: Extended = { type };
    if (type === 'L') {
      const raw = cString(data);
      entry.path = utf8Name(raw, raw.toString('latin1'));
    } else if (type === 'x') {
      const records = paxRecords(data, this.name, this.budget);
      const path = records.get('path');
      if (path !== undefined) entry.path = utf8TextName(path, path.toString('latin1'));
      if (records.has('hdrcharset')) throw unsafe(entry.path ?? header, 'has a pax hdrcharset record: its name is bytes that extractors decode differently');
      const size = records.get('size')?.toString('latin1');
      if (size !== undefined) {
        if (!/^[0-9]{1,15}$/.test(size)) throw malformed(this.name, `the pax size of "${entry.path ?? header}" is not a number`);
        entry.size = Number(size);
      }
      entry.sparse = [...records.keys()].some((k) => k.startsWith('GNU.sparse.'));
    }
    this.extended.push(entry);
  }

  /** A global header may carry defaults such as git archive's commit comment, but nothing that names or sizes members. */
  private global(header: string, data: Buffer): void {
    if (this.extended.length > 0) throw unsafe(header, 'is a pax global header between an extended header and its member');
    for (const key of paxRecords(data, this.name, this.budget).keys()) {
      if (GLOBAL_FORBIDDEN.test(key)) throw unsafe(header, `is a pax global header that sets "${key}", which some extractors apply to every later member`);
    }
  }
}

/** The members of a tar or tar.gz, read as it inflates (nothing of a bomb's output is kept), yielding as it goes. */
export async function listTar(data: Buffer, name: string, gzip: boolean, maxExpandedBytes: number): Promise<ArchiveEntry[]> {
  const reader = new TarReader(name);
  const slicer = new Slicer();
  if (!gzip) {
    for (let at = 0; at < data.length; at += SLICE_BYTES) {
      reader.push(data.subarray(at, at + SLICE_BYTES));
      await slicer.tick();
    }
    return reader.end();
  }
  const gunzip = createGunzip();
  gunzip.end(data);
  let expanded = 0;
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      expanded += chunk.length;
      if (expanded > maxExpandedBytes) throw new DomainError('invalid', 'archive_too_large', `${name} inflates to more than ${maxExpandedBytes} bytes`);
      reader.push(chunk);
      await slicer.tick();
    }
  } catch (err) {
    gunzip.destroy();
    throw err instanceof DomainError ? err : malformed(name, `it does not inflate as gzip (${(err as Error).message})`);
  }
  return reader.end();
}
