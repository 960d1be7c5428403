import { DomainError } from '../errors.js';

/**
 * What tar and zip listing share: the limits, the refusals, the path rules and the member list.
 * The rule behind every refusal: the listing must be what any common extractor (GNU tar, bsdtar,
 * Python's tarfile and zipfile, Info-ZIP unzip) would produce, so whatever two of them could read
 * differently is refused rather than guessed.
 */

export const MAX_ARCHIVE_ENTRIES = 10_000;
/** Headers of every kind (members, pax and GNU long-name headers): a member and its pax header are two. */
export const MAX_ARCHIVE_HEADERS = 2 * MAX_ARCHIVE_ENTRIES;
/** Bytes of metadata in all (tar extended headers, zip extra fields and comments), far more than 10,000 long paths need. */
export const MAX_METADATA_BYTES = 8 * 1024 * 1024;
/** pax records in all: ten per member, where GNU tar and bsdtar write three to six. */
export const MAX_PAX_RECORDS = 10 * MAX_ARCHIVE_ENTRIES;

export interface ArchiveEntry {
  path: string;
  type: 'file' | 'directory';
  bytes: number;
}

export const malformed = (name: string, why: string) => new DomainError('invalid', 'invalid_archive', `${name} is not a readable archive: ${why}`);
export const unsafe = (path: string, why: string) =>
  new DomainError('invalid', 'unsafe_archive', `archive member "${shown(path)}" ${why}; archives may hold only regular files and directories at relative paths, read the same by every extractor`);
export const tooMany = (what: string) => new DomainError('invalid', 'too_many_files', `the archive holds more than ${what}`);
export const tooMuchMetadata = (name: string) =>
  new DomainError('invalid', 'archive_too_large', `${name} holds more than ${MAX_METADATA_BYTES} bytes of headers (pax or GNU extended headers, zip extra fields and comments) or more than ${MAX_PAX_RECORDS} pax records`);

const shown = (path: string) => path.replace(/\p{Cc}/gu, '?') || '(empty)';
const ROOT = Symbol('root');

/** A relative path that stays inside the extraction folder, normalised (no `./`, no trailing `/`); ROOT for `.` itself. */
function safePath(raw: string): string | typeof ROOT {
  if (/\p{Cc}/u.test(raw)) throw unsafe(raw, 'has a control character in its path');
  if (raw.includes('\\')) throw unsafe(raw, 'has a backslash in its path');
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) throw unsafe(raw, 'has an absolute path');
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw unsafe(raw, 'climbs out of the archive with ..');
  if (segments.length === 0) {
    if (raw !== '' && raw.endsWith('/')) return ROOT;
    throw unsafe(raw, 'has an empty path');
  }
  return segments.join('/');
}

/** Code points outside printable ASCII as \u{…}, so that two names that print alike show how they differ. */
const codePoints = (path: string) => path.replace(/[^\x20-\x7e]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);

/**
 * Two names that are one file on macOS (and on Windows for case): equal once Unicode-normalised
 * (NFC; macOS file systems normalise names) and case-folded.
 */
const sameFileKey = (path: string) => path.normalize('NFC').toLowerCase();

/**
 * The members in archive order. A path may come twice only as a directory: a file named twice, a
 * file and a directory of one name, something inside a file, or two names that differ only in
 * case or in Unicode normalisation (`é` as one code point or as `e` and a combining accent; one
 * file on macOS, and on Windows for case) extract differently from how they list.
 */
export class EntryList {
  readonly entries: ArchiveEntry[] = [];
  /** Every listed path and every folder above one, by its sameFileKey. */
  private readonly seen = new Map<string, { path: string; type: ArchiveEntry['type']; listed: boolean }>();

  add(rawPath: string, type: ArchiveEntry['type'], bytes: number): void {
    if (this.entries.length >= MAX_ARCHIVE_ENTRIES) throw tooMany(`${MAX_ARCHIVE_ENTRIES} entries`);
    const path = safePath(rawPath);
    // `./` is the extraction folder itself: nothing to list.
    if (path === ROOT) return;
    const segments = path.split('/');
    for (let i = 1; i <= segments.length; i++) {
      const at = segments.slice(0, i).join('/');
      const own = i === segments.length;
      this.note(at, own ? type : 'directory', own, path);
    }
    this.entries.push({ path, type, bytes });
  }

  private note(at: string, type: ArchiveEntry['type'], listed: boolean, member: string): void {
    const key = sameFileKey(at);
    const earlier = this.seen.get(key);
    if (!earlier) {
      this.seen.set(key, { path: at, type, listed });
      return;
    }
    if (earlier.path !== at) {
      if (earlier.path.toLowerCase() === at.toLowerCase()) throw unsafe(member, `differs only in case from "${earlier.path}", which is the same file on a case-insensitive file system`);
      throw unsafe(member, `differs only in Unicode normalisation${at.normalize('NFC') === earlier.path.normalize('NFC') ? '' : ' and case'} from "${earlier.path}" (${codePoints(at)} against ${codePoints(earlier.path)}), which is the same file on macOS`);
    }
    if (earlier.type === 'file' && listed && type === 'file') throw unsafe(member, 'appears twice in the archive');
    if (earlier.type !== type) {
      throw unsafe(member, earlier.type === 'file' ? `is inside "${at}", which the archive holds as a file` : `is a file, but the archive holds "${at}" as a directory`);
    }
    earlier.listed ||= listed;
  }
}

/** Gives the event loop back every few milliseconds, so checking a large archive never stalls other requests. */
export class Slicer {
  static readonly SLICE_MS = 5;
  private started = performance.now();

  async tick(): Promise<void> {
    if (performance.now() - this.started < Slicer.SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.started = performance.now();
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A name's bytes as UTF-8, refused when they are not: tools that keep raw bytes and tools that decode would name the file differently. */
export function utf8Name(bytes: Uint8Array, fallback: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw unsafe(fallback, 'has a name that is not valid UTF-8');
  }
}

/**
 * A name the format declares UTF-8 text (a pax path, a zip name flagged UTF-8): bsdtar normalises
 * it to NFC where GNU tar, unzip and Python keep its code points, so one that is not in NFC would
 * extract under two names. Names kept as bytes (ustar, GNU long names) bsdtar leaves alone.
 */
export function utf8TextName(bytes: Uint8Array, fallback: string): string {
  const name = utf8Name(bytes, fallback);
  if (name.normalize('NFC') !== name) {
    throw unsafe(name, `is not in Unicode normalisation form C (${codePoints(name)}): bsdtar extracts it as ${codePoints(name.normalize('NFC'))}, other tools as written`);
  }
  return name;
}
