import {
  EntryList,
  malformed,
  MAX_ARCHIVE_ENTRIES,
  MAX_METADATA_BYTES,
  Slicer,
  tooMany,
  tooMuchMetadata,
  unsafe,
  utf8Name,
  utf8TextName,
  type ArchiveEntry,
} from './archive-entries.js';

/**
 * zip, read from both ends: the central directory (what unzip and zipfile list) and the local
 * headers (what a streaming reader such as `bsdtar -xf -` takes). The archive must tile exactly:
 * local entries from byte 0, each where its directory record says and agreeing with it in name,
 * method and sizes, then the directory, then one end record whose counts and offsets describe
 * that directory. Anything else is a second reading some extractor would take.
 */

const SIG = {
  local: 0x04034b50,
  central: 0x02014b50,
  end: 0x06054b50,
  zip64End: 0x06064b50,
  zip64Locator: 0x07064b50,
  descriptor: 0x08074b50,
};
const END_BYTES = 22;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const DOS_DIRECTORY = 0x10;
const FLAG_DESCRIPTOR = 0x8;
const FLAG_UTF8 = 0x800;
const ZIP64_EXTRA = 0x0001;
const UNICODE_PATH_EXTRA = 0x7075;
/** What names mean without the UTF-8 flag, by the zip specification: IBM code page 437 (its upper half; the lower is ASCII). */
const CP437_HIGH = 'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0';

/** A name without the UTF-8 flag, decoded. */
export const cp437 = (bytes: Buffer) => Array.from(bytes, (b) => (b < 0x80 ? String.fromCharCode(b) : CP437_HIGH[b - 0x80])).join('');

interface Central {
  name: string;
  rawName: Buffer;
  flags: number;
  method: number;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
}

/** Extra fields by id; a field that runs past its block, or comes twice, is malformed. */
function extraFields(extra: Buffer, bad: (why: string) => Error): Map<number, Buffer> {
  const fields = new Map<number, Buffer>();
  let at = 0;
  while (at < extra.length) {
    if (at + 4 > extra.length) throw bad('an extra field is cut short');
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (at + 4 + length > extra.length) throw bad('an extra field is cut short');
    if (fields.has(id)) throw bad(`an entry has extra field 0x${id.toString(16)} twice`);
    fields.set(id, extra.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return fields;
}

/** The zip64 values of the saturated fields, in the specification's order. */
function zip64Values(field: Buffer | undefined, saturated: boolean[], bad: (why: string) => Error): number[] {
  const values: number[] = [];
  let at = 0;
  for (const wanted of saturated) {
    if (!wanted) continue;
    if (!field || at + 8 > field.length) throw bad('a zip64 extra field is missing a value');
    const value = Number(field.readBigUInt64LE(at));
    if (!Number.isSafeInteger(value)) throw bad('a zip64 value is out of range');
    values.push(value);
    at += 8;
  }
  return values;
}

/** The Info-ZIP Unicode path field: unzip and bsdtar take its name over the header's. */
function checkUnicodePath(fields: Map<number, Buffer>, name: string) {
  const field = fields.get(UNICODE_PATH_EXTRA);
  if (!field) return;
  const other = field.length > 5 && field[0] === 1 ? utf8Name(field.subarray(5), name) : undefined;
  if (other !== name) throw unsafe(name, `has a Unicode path extra field naming it "${other ?? '(unreadable)'}", which unzip and bsdtar use instead`);
}

interface End {
  count: number;
  directoryStart: number;
  directoryEnd: number;
  commentBytes: number;
}

function endRecord(data: Buffer, bad: (why: string) => Error): End {
  // Every place an end record could be: readers search from the back, some for the last
  // signature, some for the first whose comment length fits, so more than one is two readings.
  const candidates: number[] = [];
  for (let i = data.length - END_BYTES; i >= Math.max(0, data.length - END_BYTES - 0xffff); i--) {
    if (data.readUInt32LE(i) === SIG.end && data.readUInt16LE(i + 20) === data.length - i - END_BYTES) candidates.push(i);
  }
  if (candidates.length === 0) throw bad('no zip end-of-central-directory record');
  const end = candidates[0];
  if (candidates.length > 1 || data.subarray(end + 4).includes(data.subarray(end, end + 4))) throw bad('it has more than one end-of-central-directory record');
  const disk = data.readUInt16LE(end + 4);
  const directoryDisk = data.readUInt16LE(end + 6);
  const onDisk = data.readUInt16LE(end + 8);
  let count = data.readUInt16LE(end + 10);
  let directoryBytes = data.readUInt32LE(end + 12);
  let directoryStart = data.readUInt32LE(end + 16);
  if (disk !== 0 || directoryDisk !== 0 || onDisk !== count) throw bad('it spans more than one disk');
  let directoryEnd = end;
  const locator = end - 20;
  if (locator >= 0 && data.readUInt32LE(locator) === SIG.zip64Locator) {
    const at = Number(data.readBigUInt64LE(locator + 8));
    if (data.readUInt32LE(locator + 4) !== 0 || data.readUInt32LE(locator + 16) !== 1) throw bad('it spans more than one disk');
    if (at + 56 > locator || data.readUInt32LE(at) !== SIG.zip64End || Number(data.readBigUInt64LE(at + 4)) + 12 !== locator - at) {
      throw bad('its zip64 end record is not where its locator says');
    }
    const big = (offset: number) => Number(data.readBigUInt64LE(at + offset));
    const agree = (small: number, saturated: number, value: number) => small === saturated || small === value;
    if (data.readUInt32LE(at + 16) !== 0 || data.readUInt32LE(at + 20) !== 0 || big(24) !== big(32)) throw bad('it spans more than one disk');
    if (!agree(count, 0xffff, big(32)) || !agree(directoryBytes, 0xffffffff, big(40)) || !agree(directoryStart, 0xffffffff, big(48))) {
      throw bad('its end record and zip64 end record disagree on the central directory');
    }
    [count, directoryBytes, directoryStart] = [big(32), big(40), big(48)];
    directoryEnd = at;
  }
  if (directoryStart + directoryBytes !== directoryEnd) {
    throw bad(`its end record puts the central directory at bytes ${directoryStart}–${directoryStart + directoryBytes}, but it runs to byte ${directoryEnd}`);
  }
  return { count, directoryStart, directoryEnd, commentBytes: data.length - end - END_BYTES };
}

function centralRecord(data: Buffer, at: number, end: number, bad: (why: string) => Error): { entry: Central; next: number; mode: number; dosAttributes: number; metadata: number } {
  if (at + 46 > end || data.readUInt32LE(at) !== SIG.central) throw bad('the central directory is cut short or holds something else');
  const flags = data.readUInt16LE(at + 8);
  const nameLength = data.readUInt16LE(at + 28);
  const extraLength = data.readUInt16LE(at + 30);
  const commentLength = data.readUInt16LE(at + 32);
  const next = at + 46 + nameLength + extraLength + commentLength;
  if (next > end) throw bad('the central directory is cut short');
  const rawName = data.subarray(at + 46, at + 46 + nameLength);
  const name = flags & FLAG_UTF8 ? utf8TextName(rawName, rawName.toString('latin1')) : cp437(rawName);
  const fields = extraFields(data.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), bad);
  let compressed = data.readUInt32LE(at + 20);
  let size = data.readUInt32LE(at + 24);
  let offset = data.readUInt32LE(at + 42);
  const diskStart = data.readUInt16LE(at + 34);
  const saturated = [size === 0xffffffff, compressed === 0xffffffff, offset === 0xffffffff, diskStart === 0xffff];
  const values = zip64Values(fields.get(ZIP64_EXTRA), saturated, bad);
  if (saturated[0]) size = values.shift()!;
  if (saturated[1]) compressed = values.shift()!;
  if (saturated[2]) offset = values.shift()!;
  if ((saturated[3] ? values.shift() : diskStart) !== 0) throw bad('it spans more than one disk');
  checkUnicodePath(fields, name);
  const external = data.readUInt32LE(at + 38);
  return {
    entry: { name, rawName, flags, method: data.readUInt16LE(at + 10), crc: data.readUInt32LE(at + 16), compressed, size, offset },
    next,
    mode: external >>> 16,
    dosAttributes: external & 0xff,
    metadata: extraLength + commentLength,
  };
}

/**
 * The entry's type. Every host byte is read: Info-ZIP unzip honours Unix mode bits whatever host
 * wrote them (Atari, BeOS and macOS as much as Unix), so a link or device mode under any host is
 * one; a name ending in `/` is what makes a directory for unzip and zipfile.
 */
function typeOf(name: string, mode: number, dosAttributes: number, size: number): ArchiveEntry['type'] {
  const format = mode & S_IFMT;
  const directory = name.endsWith('/');
  if (format === S_IFLNK) throw unsafe(name, 'is a symbolic link');
  if (format !== 0 && format !== S_IFREG && format !== S_IFDIR) throw unsafe(name, 'is a special file (a device, FIFO or socket)');
  if (!directory && (format === S_IFDIR || dosAttributes & DOS_DIRECTORY)) throw unsafe(name, 'is a directory by its attributes but not by its name (no trailing /)');
  if (directory && format === S_IFREG) throw unsafe(name, 'is a regular file by its attributes but a directory by its name');
  if (directory && size > 0) throw unsafe(name, `is a directory with ${size} bytes of contents`);
  return directory ? 'directory' : 'file';
}

/** Checks the local header at the entry's offset against its directory record; answers where the entry's bytes end. */
function localEntry(data: Buffer, entry: Central, limit: number, bad: (why: string) => Error): number {
  const at = entry.offset;
  const disagree = (what: string) => unsafe(entry.name, `has a local header whose ${what} differs from the central directory's, so streaming and directory readers extract different files`);
  if (at + 30 > limit || data.readUInt32LE(at) !== SIG.local) throw bad(`the local header of "${entry.name}" is missing`);
  const flags = data.readUInt16LE(at + 6);
  const nameLength = data.readUInt16LE(at + 26);
  const extraLength = data.readUInt16LE(at + 28);
  const start = at + 30 + nameLength + extraLength;
  if (start > limit) throw bad(`the local header of "${entry.name}" is cut short`);
  if (!data.subarray(at + 30, at + 30 + nameLength).equals(entry.rawName)) throw disagree('name');
  if ((flags & (FLAG_UTF8 | FLAG_DESCRIPTOR)) !== (entry.flags & (FLAG_UTF8 | FLAG_DESCRIPTOR)) || data.readUInt16LE(at + 8) !== entry.method) throw disagree('flags or method');
  const fields = extraFields(data.subarray(at + 30 + nameLength, start), bad);
  checkUnicodePath(fields, entry.name);
  let compressed = data.readUInt32LE(at + 18);
  let size = data.readUInt32LE(at + 22);
  const zip64 = fields.has(ZIP64_EXTRA);
  if (zip64 && (size === 0xffffffff || compressed === 0xffffffff)) [size, compressed] = zip64Values(fields.get(ZIP64_EXTRA), [true, true], bad);
  const crc = data.readUInt32LE(at + 14);
  const deferred = (flags & FLAG_DESCRIPTOR) !== 0;
  // With a data descriptor the local values may be zeros, to be read after the data.
  const matches = (local: number, central: number) => local === central || (deferred && local === 0);
  if (!matches(size, entry.size) || !matches(compressed, entry.compressed) || !matches(crc, entry.crc)) throw disagree('size or checksum');
  let end = start + entry.compressed;
  if (deferred) {
    if (end + 4 <= limit && data.readUInt32LE(end) === SIG.descriptor) end += 4;
    const width = zip64 ? 8 : 4;
    if (end + 4 + 2 * width > limit) throw bad(`the data descriptor of "${entry.name}" is cut short`);
    const read = (offset: number) => (width === 8 ? Number(data.readBigUInt64LE(offset)) : data.readUInt32LE(offset));
    if (data.readUInt32LE(end) !== entry.crc || read(end + 4) !== entry.compressed || read(end + 4 + width) !== entry.size) throw disagree('data descriptor');
    end += 4 + 2 * width;
  }
  if (end > limit) throw bad(`the data of "${entry.name}" runs into the central directory`);
  return end;
}

/** The members of a zip, or the 400 that says where two readers of it would part ways. */
export async function listZip(data: Buffer, name: string): Promise<ArchiveEntry[]> {
  const bad = (why: string) => malformed(name, why);
  const { count, directoryStart, directoryEnd, commentBytes } = endRecord(data, bad);
  if (count > MAX_ARCHIVE_ENTRIES) throw tooMany(`${MAX_ARCHIVE_ENTRIES} entries`);
  const slicer = new Slicer();
  const list = new EntryList();
  let metadata = commentBytes;
  let expected = 0;
  let at = directoryStart;
  let records = 0;
  for (; at < directoryEnd; records++) {
    if (records === count) throw bad(`its end record counts ${count} entries, but the central directory holds more`);
    const record = centralRecord(data, at, directoryEnd, bad);
    metadata += record.metadata;
    if (metadata > MAX_METADATA_BYTES) throw tooMuchMetadata(name);
    const { entry } = record;
    if (entry.offset !== expected) {
      throw bad(entry.offset < expected ? `"${entry.name}" overlaps the entry before it` : `${entry.offset - expected} bytes before "${entry.name}" belong to no entry of the central directory`);
    }
    expected = localEntry(data, entry, directoryStart, bad);
    const type = typeOf(entry.name, record.mode, record.dosAttributes, entry.size);
    list.add(entry.name, type, type === 'directory' ? 0 : entry.size);
    at = record.next;
    await slicer.tick();
  }
  if (records < count) throw bad(`its end record counts ${count} entries, but the central directory holds fewer`);
  if (expected !== directoryStart) throw bad(`${directoryStart - expected} bytes before the central directory belong to no entry`);
  return list.entries;
}
