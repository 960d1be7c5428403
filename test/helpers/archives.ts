/**
 * Archives built byte by byte, so the tests control every header the server's checks read
 * (links, devices, paths, extended headers, local headers, end records), including the ones no
 * honest tool writes.
 */
import { crc32 } from 'node:zlib';

export interface TarMember {
  path: string;
  /** tar type flag: 0 file (default), 5 directory, 1 hard link, 2 symlink, 3 char device, 6 FIFO */
  type?: '0' | '1' | '2' | '3' | '5' | '6';
  content?: string;
  link?: string;
}

/** One tar header and its data, as written: any type flag, any size field, any magic. */
export interface TarRecord {
  /** The name field; bytes for a name that is not UTF-8. */
  name: string | Buffer;
  /** The type flag byte; `x`, `g`, `L` for extended headers. Default `0`. */
  type?: string;
  data?: string | Buffer;
  /** The header's size field, when it should differ from the data's length. */
  size?: number;
  link?: string;
  prefix?: string;
  /** `posix` (`ustar\0` `00`, the default), `gnu` (`ustar  \0`) or `none` (pre-POSIX). */
  magic?: 'posix' | 'gnu' | 'none';
  /** Writes the size field in base-256, as tars do for members of 8 GiB and more. */
  base256?: boolean;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(r: TarRecord, size: number): Buffer {
  const block = Buffer.alloc(512);
  if (typeof r.name === 'string') block.write(r.name, 0, 100, 'utf8');
  else r.name.copy(block, 0, 0, 100);
  block.write(octal(r.type === '5' ? 0o755 : 0o644, 8), 100, 'latin1');
  block.write(octal(0, 8), 108, 'latin1');
  block.write(octal(0, 8), 116, 'latin1');
  if (r.base256) {
    block[124] = 0x80;
    block.writeUIntBE(r.size ?? size, 130, 6);
  } else {
    block.write(octal(r.size ?? size, 12), 124, 'latin1');
  }
  block.write(octal(1_700_000_000, 12), 136, 'latin1');
  block.write(' '.repeat(8), 148, 'latin1');
  block.write(r.type ?? '0', 156, 'latin1');
  block.write(r.link ?? '', 157, 100, 'utf8');
  const magic = r.magic ?? 'posix';
  if (magic === 'posix') block.write('ustar\x0000', 257, 'latin1');
  if (magic === 'gnu') block.write('ustar  \0', 257, 'latin1');
  if (r.prefix) block.write(r.prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

const pad = (data: Buffer) => Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);

/** pax records, each `<length> <key>=<value>\n` where the length counts its own digits. */
export function paxData(records: Array<[string, string]>): Buffer {
  return Buffer.concat(records.map(([key, value]) => {
    const body = Buffer.byteLength(` ${key}=${value}\n`);
    let length = body + 1;
    while (String(length).length + body !== length) length = String(length).length + body;
    return Buffer.from(`${length} ${key}=${value}\n`);
  }));
}

/** Headers and data as given, then `end` (two zero blocks by default). */
export function tarRecords(records: TarRecord[], end: Buffer = Buffer.alloc(1024)): Buffer {
  const blocks: Buffer[] = [];
  for (const r of records) {
    const data = Buffer.from(r.data ?? '');
    blocks.push(header(r, data.length), pad(data));
  }
  blocks.push(end);
  return Buffer.concat(blocks);
}

/** A ustar archive; a path longer than 100 bytes goes into a pax header, as GNU and bsdtar write it. */
export function tarOf(members: TarMember[]): Buffer {
  const records: TarRecord[] = [];
  for (const m of members) {
    let name = m.path;
    if (Buffer.byteLength(name) > 100) {
      records.push({ name: 'PaxHeader', type: 'x', data: paxData([['path', name]]) });
      name = name.slice(0, 100);
    }
    const file = (m.type ?? '0') === '0';
    records.push({ name, type: m.type ?? '0', data: file ? m.content ?? '' : '', link: m.link });
  }
  return tarRecords(records);
}

export interface ZipMember {
  path: string;
  /** The name's bytes when they are not the path's UTF-8 (a CP437 name, say). */
  rawName?: Buffer;
  content?: string;
  /** Unix mode bits recorded in the external attributes; 0o120777 makes a symlink. */
  mode?: number;
  /** The MS-DOS attribute byte of the external attributes (0x10: directory). */
  dosAttributes?: number;
  /** The host byte of "version made by": 3 Unix (the default), 0 MS-DOS, 5 Atari, 16 BeOS, 19 OS X. */
  host?: number;
  /** Sets the UTF-8 name flag (bit 11); default true unless rawName is given. */
  utf8?: boolean;
  /** What the local header says instead of the central directory's record. */
  localName?: string;
  localSize?: number;
  /** Sizes and CRC in a data descriptor after the data (flag bit 3), zeros in the local header. */
  descriptor?: boolean;
  /** An Info-ZIP Unicode path extra field (0x7075) with this name, in both headers. */
  unicodePath?: string;
  /** Leave the member out of the central directory: a local entry only a streaming reader sees. */
  hidden?: boolean;
  /** Sizes and offset in zip64 extra fields, the 32-bit fields saturated, as for members past 4 GiB. */
  zip64?: boolean;
  /** Extra field bytes appended to the central record's. */
  centralExtra?: Buffer;
}

export interface ZipOptions {
  /** Bytes before the first local header. */
  before?: Buffer;
  /** The end record's entry counts, when they should differ from the directory's. */
  count?: number;
  /** The end record's directory offset, when it should differ. */
  directoryOffset?: number;
  comment?: Buffer;
  /** Bytes after the end record (a second end record, say). */
  after?: Buffer;
  /** A zip64 end record and locator before the end record, whose fields are then saturated unless `saturate` is false. */
  zip64?: { count?: number; saturate?: boolean };
}

function extra(id: number, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(id, 0);
  head.writeUInt16LE(data.length, 2);
  return Buffer.concat([head, data]);
}

function unicodePathField(name: Buffer, unicode: string): Buffer {
  const head = Buffer.alloc(5);
  head[0] = 1;
  head.writeUInt32LE(crc32(name), 1);
  return extra(0x7075, Buffer.concat([head, Buffer.from(unicode)]));
}

export function endRecord(count: number, directoryBytes: number, directoryOffset: number, comment: Buffer = Buffer.alloc(0)): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directoryBytes, 12);
  end.writeUInt32LE(directoryOffset, 16);
  end.writeUInt16LE(comment.length, 20);
  return Buffer.concat([end, comment]);
}

/** A zip with stored (uncompressed) members and a central directory, written by a Unix host unless told. */
export function zipOf(members: ZipMember[], options: ZipOptions = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = options.before?.length ?? 0;
  let listed = 0;
  for (const m of members) {
    const name = m.rawName ?? Buffer.from(m.path);
    const localName = m.localName === undefined ? name : Buffer.from(m.localName);
    const data = Buffer.from(m.content ?? '');
    const crc = crc32(data);
    const flags = ((m.utf8 ?? !m.rawName) ? 0x800 : 0) | (m.descriptor ? 0x8 : 0);
    const unicode = m.unicodePath === undefined ? Buffer.alloc(0) : unicodePathField(name, m.unicodePath);
    const big = (...values: number[]) => {
      const field = Buffer.alloc(8 * values.length);
      values.forEach((v, i) => field.writeBigUInt64LE(BigInt(v), 8 * i));
      return extra(0x0001, field);
    };
    const localExtras = Buffer.concat([unicode, m.zip64 ? big(data.length, data.length) : Buffer.alloc(0)]);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    if (!m.descriptor) {
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(m.zip64 ? 0xffffffff : m.localSize ?? data.length, 18);
      local.writeUInt32LE(m.zip64 ? 0xffffffff : m.localSize ?? data.length, 22);
    }
    local.writeUInt16LE(localName.length, 26);
    local.writeUInt16LE(localExtras.length, 28);
    const parts = [local, localName, localExtras, data];
    if (m.descriptor) {
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(data.length, 8);
      descriptor.writeUInt32LE(data.length, 12);
      parts.push(descriptor);
    }
    locals.push(...parts);
    const localOffset = offset;
    offset += parts.reduce((n, p) => n + p.length, 0);
    if (m.hidden) continue;
    listed++;
    const centralExtras = Buffer.concat([unicode, m.zip64 ? big(data.length, data.length, localOffset) : Buffer.alloc(0), m.centralExtra ?? Buffer.alloc(0)]);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(((m.host ?? 3) << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(m.zip64 ? 0xffffffff : data.length, 20);
    central.writeUInt32LE(m.zip64 ? 0xffffffff : data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(centralExtras.length, 30);
    const mode = m.mode ?? (m.path.endsWith('/') ? 0o040755 : 0o100644);
    central.writeUInt32LE(((mode << 16) | (m.dosAttributes ?? (m.path.endsWith('/') ? 0x10 : 0))) >>> 0, 38);
    central.writeUInt32LE(m.zip64 ? 0xffffffff : localOffset, 42);
    centrals.push(central, name, centralExtras);
  }
  const directory = Buffer.concat(centrals);
  const count = options.count ?? listed;
  const directoryOffset = options.directoryOffset ?? offset;
  if (!options.zip64) {
    const end = endRecord(count, directory.length, directoryOffset, options.comment);
    return Buffer.concat([options.before ?? Buffer.alloc(0), ...locals, directory, end, options.after ?? Buffer.alloc(0)]);
  }
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE((3 << 8) | 45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(options.zip64.count ?? count), 24);
  record.writeBigUInt64LE(BigInt(options.zip64.count ?? count), 32);
  record.writeBigUInt64LE(BigInt(directory.length), 40);
  record.writeBigUInt64LE(BigInt(directoryOffset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
  locator.writeUInt32LE(1, 16);
  const saturate = options.zip64.saturate ?? true;
  const end = saturate ? endRecord(0xffff, 0xffffffff, 0xffffffff, options.comment) : endRecord(count, directory.length, directoryOffset, options.comment);
  return Buffer.concat([options.before ?? Buffer.alloc(0), ...locals, directory, record, locator, end, options.after ?? Buffer.alloc(0)]);
}
