import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import t from '../../helpers/tap.js';
import { endRecord, paxData, tarOf, tarRecords, zipOf, type TarRecord } from '../../helpers/archives.js';
import { readWithTools, type ArchiveFormat } from '../../helpers/extractors.js';
import { startInProcess } from '../../helpers/server.js';

/**
 * The differential archive test: a hostile corpus, and archives real tools wrote, each uploaded to
 * the mock. Every archive is either refused, or listed by the mock exactly as GNU tar, bsdtar,
 * Python's tarfile and zipfile and Info-ZIP unzip list and extract it, none of them writing a link
 * or anything outside its folder.
 */

interface Case {
  what: string;
  name: string;
  data: Buffer;
  /** The refusal this case must get: its error and what the message must say. */
  refused?: [string, RegExp];
  /** An honest archive: it must be accepted. */
  accepted?: true;
}

const file = (name: string, data: string | Buffer = 'x', more: Partial<TarRecord> = {}): TarRecord => ({ name, data, ...more });
const pax = (records: Array<[string, string]>, type = 'x'): TarRecord => ({ name: 'PaxHeaders/x', type, data: paxData(records) });
const gnuName = (name: string): TarRecord => ({ name: '././@LongLink', type: 'L', data: `${name}\0` });
const tar = (what: string, records: TarRecord[], refused?: [string, RegExp], end?: Buffer): Case => ({ what, name: 'corpus.tar', data: tarRecords(records, end), refused });
const UNSAFE = 'unsafe_archive';
/** One name as one file on macOS, written two ways: é as one code point (NFC), and as e and a combining accent (NFD). */
const NFC = 'caf\u00e9.txt';
const NFD = 'cafe\u0301.txt';
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NOT_NFC = /"cafe\u0301\.txt" is not in Unicode normalisation form C \(cafe\\u\{301\}\.txt\): bsdtar extracts it as caf\\u\{e9\}\.txt/u;
/** The refusal names both members, each as written. */
const sameInNfc = (later: string, earlier: string) => new RegExp(`"${escapeRegExp(later)}" .*"${escapeRegExp(earlier)}"`);
const INVALID = 'invalid_archive';

const tarCorpus: Case[] = [
  { what: 'a plain tar of files and directories', name: 'plain.tar', data: tarRecords([file('dir/', '', { type: '5' }), file('dir/a.txt', 'a'), file('b.txt', 'bb')]), accepted: true },
  { what: 'a tar that starts with ./, as tar -C dir . writes it', name: 'dot.tar', data: tarRecords([file('./', '', { type: '5' }), file('./a.txt')]), accepted: true },
  { what: 'a git archive global header with only a comment', name: 'git.tar', data: tarRecords([pax([['comment', 'a'.repeat(40)]], 'g'), file('a.txt')]), accepted: true },
  { what: 'a GNU long name', name: 'long.tar', data: tarRecords([gnuName(`${'d'.repeat(150)}/f.txt`), file('d'.repeat(100), 'long', { magic: 'gnu' })]), accepted: true },
  { what: 'a ustar prefix in a POSIX header', name: 'prefix.tar', data: tarRecords([file('c.txt', 'c', { prefix: 'a/b' })]), accepted: true },
  { what: 'a pax size with a zero header size', name: 'paxsize.tar', data: tarRecords([pax([['size', '3']]), file('a.txt', 'abc', { size: 0 })]), accepted: true },
  { what: 'end blocks padded with zeros to a 10 KiB record', name: 'record.tar', data: tarRecords([file('a.txt')], Buffer.alloc(10240 - 1024)), accepted: true },
  { what: 'a pax path with ./ and doubled slashes', name: 'dots.tar', data: tarRecords([pax([['path', './a//b.txt']]), file('ignored.txt')]), accepted: true },
  { what: 'a directory listed twice', name: 'dirtwice.tar', data: tarRecords([file('d/', '', { type: '5' }), file('d/', '', { type: '5' }), file('d/a')]), accepted: true },
  { what: 'a link name on a regular file', name: 'linkname.tar', data: tarRecords([file('a.txt', 'aaa'), file('b.txt', 'bbbb', { link: '/etc/passwd' })]), accepted: true },
  { what: 'a pax link path on a regular file', name: 'linkpath.tar', data: tarRecords([file('a.txt', 'aaa'), pax([['linkpath', 'a.txt']]), file('b.txt', 'bbbb')]), accepted: true },
  { what: 'a tar.gz', name: 'plain.tgz', data: gzipSync(tarRecords([file('a/b.txt', 'b')])), accepted: true },

  tar('a pax global header that renames every member', [pax([['path', '../evil']], 'g'), file('safe.txt')], [UNSAFE, /global header that sets "path"/]),
  tar('a pax global header with a link path', [pax([['linkpath', '/etc/passwd']], 'g'), file('safe.txt')], [UNSAFE, /"linkpath"/]),
  tar('a pax global size', [pax([['size', '0']], 'g'), file('safe.txt', 'x'.repeat(600))], [UNSAFE, /"size"/]),
  tar('a pax global sparse record', [pax([['GNU.sparse.name', '../evil']], 'g'), file('safe.txt')], [UNSAFE, /GNU\.sparse\.name/]),
  tar('a GNU.sparse.name', [pax([['GNU.sparse.major', '1'], ['GNU.sparse.minor', '0'], ['GNU.sparse.name', '../evil']]), file('safe.txt')], [UNSAFE, /"safe\.txt".*sparse/]),
  tar('two pax headers for one member', [pax([['path', '../evil']]), pax([['path', 'safe.txt']]), file('safe.txt')], [UNSAFE, /2 extended headers.*"\.\.\/evil" and "safe\.txt"/]),
  tar('two pax headers that agree', [pax([['path', 'a.txt']]), pax([['mtime', '1']]), file('a.txt')], [UNSAFE, /"a\.txt" has 2 extended headers/]),
  tar('a pax name and a GNU long name that disagree', [pax([['path', 'safe.txt']]), gnuName('../evil'), file('safe.txt')], [UNSAFE, /pax and GNU long name/]),
  tar('a GNU long name, then a pax name', [gnuName('../evil'), pax([['path', 'safe.txt']]), file('safe.txt')], [UNSAFE, /GNU long name and pax/]),
  tar('two GNU long names', [gnuName('safe.txt'), gnuName('../evil'), file('safe.txt')], [UNSAFE, /2 extended headers/]),
  tar('a pax global header between a pax header and its member', [pax([['path', 'a.txt']]), pax([['comment', 'x']], 'g'), file('a.txt')], [UNSAFE, /between an extended header and its member/]),
  tar('a pax header describing no member', [file('a.txt'), pax([['path', 'b.txt']])], [INVALID, /describes no member/]),
  tar('a pax hdrcharset', [pax([['hdrcharset', 'BINARY'], ['path', 'a.txt']]), file('a.txt')], [UNSAFE, /hdrcharset/]),
  tar('a pax size that contradicts the header', [pax([['size', '0']]), file('a.txt', 'x'.repeat(600))], [UNSAFE, /pax size of 0 bytes and a header size of 600/]),
  tar('a pax record without its newline', [{ name: 'p', type: 'x', data: '11 path=abc' }, file('a.txt')], [INVALID, /pax header record is malformed/]),
  tar('a pax record with a hexadecimal length', [{ name: 'p', type: 'x', data: '0xd path=abc\n' }, file('a.txt')], [INVALID, /malformed/]),
  tar('a pax key set twice', [pax([['path', 'a'], ['path', '../evil']]), file('a')], [INVALID, /"path" twice/]),
  tar('a second archive after the end blocks', [file('safe.txt')], [INVALID, /non-zero data follows its end-of-archive block/], Buffer.concat([Buffer.alloc(1024), tarOf([{ path: '../evil', content: 'x' }])])),
  tar('a member after a single zero block', [file('safe.txt')], [INVALID, /non-zero data/], Buffer.concat([Buffer.alloc(512), tarOf([{ path: 'hidden.txt' }])])),
  tar('garbage after the end blocks', [file('safe.txt')], [INVALID, /non-zero data/], Buffer.concat([Buffer.alloc(1024), Buffer.from('trailing')])),
  tar('a directory whose contents are a hidden header', [file('d', tarOf([{ path: '../evil', content: 'x' }]).subarray(0, 1024), { type: '5' }), file('safe.txt')], [UNSAFE, /"d\/?" is a directory with 1024 bytes of contents/]),
  tar('a regular file whose name ends with /', [file('d/', 'x')], [UNSAFE, /regular file whose name ends with/]),
  tar('an old-style regular file whose name ends with /', [file('d/', '', { type: '\0' })], [UNSAFE, /regular file whose name ends with/]),
  tar('a prefix in a GNU header', [file('evil', 'x', { magic: 'gnu', prefix: '..' })], [UNSAFE, /prefix in a header that is not POSIX/]),
  tar('a prefix in a pre-POSIX header', [file('evil', 'x', { magic: 'none', prefix: '/etc' })], [UNSAFE, /prefix in a header that is not POSIX/]),
  tar('a file named twice', [file('a.txt', 'one'), file('a.txt', 'two')], [UNSAFE, /"a\.txt" appears twice/]),
  tar('names that differ only in case', [file('README'), file('readme')], [UNSAFE, /"readme" differs only in case from "README"/]),
  { what: 'a ustar name in NFD', name: 'nfd.tar', data: tarRecords([file(NFD), file('cafe.txt')]), accepted: true },
  // bsdtar reads a pax path in NFC, GNU tar and tarfile as written: so no pax path may be in NFD.
  tar('a pax path in NFD', [pax([['path', NFD]]), file('ignored.txt')], [UNSAFE, NOT_NFC]),
  tar('one name in NFC and in NFD', [file(NFC), file(NFD)], [UNSAFE, sameInNfc(NFD, NFC)]),
  tar('a folder in NFD and a file under its NFC name', [file('cafe\u0301/', '', { type: '5' }), file('caf\u00e9/a.txt')], [UNSAFE, sameInNfc('caf\u00e9/a.txt', 'cafe\u0301')]),
  tar('names equal in NFC and in case', [file(NFC), file(NFD.toUpperCase())], [UNSAFE, sameInNfc(NFD.toUpperCase(), NFC)]),
  tar('a file, then something inside it', [file('a'), file('a/b')], [UNSAFE, /"a\/b" is inside "a", which the archive holds as a file/]),
  tar('a file where a directory was', [file('a/b'), file('a')], [UNSAFE, /"a" is a file, but the archive holds "a" as a directory/]),
  tar('a name that is not UTF-8', [{ name: Buffer.from([0x63, 0x61, 0x66, 0xe9]), data: 'x' }], [UNSAFE, /not valid UTF-8/]),
  { what: 'a base-256 size', name: 'base256.tar', data: tarRecords([file('a.txt', 'abc', { base256: true })]), accepted: true },
  tar('a file named .', [file('.')], [UNSAFE, /"\." has an empty path/]),
  tar('an absolute path', [file('/tmp/nodus-mock-corpus-escape')], [UNSAFE, /absolute path/]),
  tar('a path that climbs out', [file('a/../../evil')], [UNSAFE, /climbs out/]),
  tar('a pax path that climbs out', [pax([['path', '../evil']]), file('safe.txt')], [UNSAFE, /"\.\.\/evil" climbs out/]),
  tar('a GNU long name that climbs out', [gnuName('../../evil'), file('safe.txt')], [UNSAFE, /climbs out/]),
  tar('a backslash', [file('..\\evil')], [UNSAFE, /backslash/]),
  tar('a control character', [file('a\nb')], [UNSAFE, /control character/]),
  tar('a symbolic link', [file('link', '', { type: '2', link: '/etc' }), file('link/passwd')], [UNSAFE, /"link" is a symbolic link/]),
  tar('a hard link', [file('a'), file('b', '', { type: '1', link: 'a' })], [UNSAFE, /hard link/]),
  tar('a pax link path on a symbolic link', [pax([['linkpath', '../../etc']]), file('link', '', { type: '2', link: 'safe' })], [UNSAFE, /symbolic link/]),
  tar('a character device', [file('tty', '', { type: '3' })], [UNSAFE, /character device/]),
  tar('a block device', [file('sda', '', { type: '4' })], [UNSAFE, /block device/]),
  tar('a FIFO', [file('pipe', '', { type: '6' })], [UNSAFE, /FIFO/]),
  tar('an old GNU sparse member', [file('sparse', '', { type: 'S' })], [UNSAFE, /type "S"/]),
  tar('a GNU volume label', [file('label', '', { type: 'V' })], [UNSAFE, /type "V"/]),
  tar('a Solaris extended header', [{ name: 'x', type: 'X', data: paxData([['path', '../evil']]) }, file('safe.txt')], [UNSAFE, /type "X"/]),
  tar('a GNU dump directory', [file('dump', 'Ya\0\0', { type: 'D' })], [UNSAFE, /type "D"/]),
  tar('an extended header over 64 KiB', [pax([['comment', 'x'.repeat(70_000)]]), file('a.txt')], [INVALID, /larger than 65536 bytes/]),
  { what: 'more than 8 MiB of pax headers', name: 'meta.tgz', data: gzipSync(tarRecords(Array.from({ length: 140 }, (_, i) => [pax([['comment', 'x'.repeat(60_000)]]), file(`f${i}`)]).flat())), refused: ['archive_too_large', /more than 8388608 bytes of headers/] },
  { what: 'more than 100,000 pax records', name: 'records.tgz', data: gzipSync(tarRecords(Array.from({ length: 200 }, (_, i) => [pax(Array.from({ length: 600 }, (_, j): [string, string] => [`k${j}`, 'v'])), file(`f${i}`)]).flat())), refused: ['archive_too_large', /100000 pax records/] },
  { what: 'more than 20,000 headers', name: 'headers.tgz', data: gzipSync(tarRecords([...Array.from({ length: 20_000 }, (): TarRecord => ({ name: 'g', type: 'g' })), file('a.txt')])), refused: ['too_many_files', /20000 headers/] },
  { what: 'more than 10,000 members', name: 'members.tgz', data: gzipSync(tarRecords(Array.from({ length: 10_001 }, (_, i) => file(`f${i}`)))), refused: ['too_many_files', /10000 entries/] },
];

const zip = (what: string, members: Parameters<typeof zipOf>[0], refused?: [string, RegExp], options?: Parameters<typeof zipOf>[1]): Case => ({ what, name: 'corpus.zip', data: zipOf(members, options), refused });
/** A copy with a few bytes rewritten: the corner no zip writer reaches. */
function patch(data: Buffer, at: number, value: number, bytes: 2 | 4 = 4): Buffer {
  const copy = Buffer.from(data);
  copy.writeUIntLE(value, at, bytes);
  return copy;
}
/** Two stored one-byte files: local headers at 0 and 36, directory records at 72 and 123, the end record at 174. */
const two = zipOf([{ path: 'a.txt', content: 'a' }, { path: 'b.txt', content: 'b' }]);
const zipOfTwo = (what: string, data: Buffer, refused: [string, RegExp]): Case => ({ what, name: 'two.zip', data, refused });
const threeFiles = [{ path: 'a.txt', content: 'a' }, { path: 'b.txt', content: 'b' }, { path: 'c.txt', content: 'c' }];

const zipCorpus: Case[] = [
  { what: 'a plain zip', name: 'plain.zip', data: zipOf([{ path: 'src/' }, { path: 'src/main.py', content: 'print(1)' }, { path: 'b.txt', content: 'b' }]), accepted: true },
  { what: 'a zip from an MS-DOS host', name: 'dos.zip', data: zipOf([{ path: 'd/', host: 0, mode: 0 }, { path: 'd/a.txt', host: 0, mode: 0, content: 'a' }]), accepted: true },
  { what: 'a zip with data descriptors', name: 'descriptor.zip', data: zipOf([{ path: 'a.txt', content: 'streamed', descriptor: true }, { path: 'b.txt', content: 'b', descriptor: true }]), accepted: true },
  { what: 'a CP437 name without the UTF-8 flag', name: 'cp437.zip', data: zipOf([{ path: 'café.txt', rawName: Buffer.from('caf\x82.txt', 'latin1'), content: 'x' }]), accepted: true },
  { what: 'a Unicode path field that agrees', name: 'unicode.zip', data: zipOf([{ path: 'naïve.txt', unicodePath: 'naïve.txt', content: 'x' }]), accepted: true },
  { what: 'a zip with a comment', name: 'comment.zip', data: zipOf([{ path: 'a.txt' }], { comment: Buffer.from('made by a test') }), accepted: true },

  ...[3, 0, 5, 16, 19, 30].map((host) => zip(`a symbolic link under host ${host}`, [{ path: 'link', content: '/etc/passwd', mode: 0o120777, host }, { path: 'link/x' }], [UNSAFE, /"link" is a symbolic link/])),
  ...[[0o020644, 'a character device'], [0o060644, 'a block device'], [0o010644, 'a FIFO'], [0o140644, 'a socket']].map(([mode, what]) =>
    zip(`${what} under host 19`, [{ path: 'special', mode: mode as number, host: 19 }], [UNSAFE, /special file/])),
  zip('a local name that climbs out', [{ path: 'safe.txt', localName: '../evil', content: 'x' }], [UNSAFE, /"safe\.txt" has a local header whose name differs/]),
  zip('a local name of the same length', [{ path: 'safe.txt', localName: 'evil.txt', content: 'x' }], [UNSAFE, /local header whose name differs/]),
  zip('a local size that differs', [{ path: 'a.txt', content: 'abc', localSize: 1 }, { path: 'b.txt' }], [UNSAFE, /"a\.txt" has a local header whose size or checksum differs/]),
  zip('an end record that counts fewer entries', threeFiles, [INVALID, /counts 1 entries, but the central directory holds more/], { count: 1 }),
  zip('an end record that counts more entries', threeFiles, [INVALID, /counts 5 entries/], { count: 5 }),
  zip('an end record whose directory offset skips an entry', threeFiles, [INVALID, /central directory at bytes/], { directoryOffset: 3 * 36 + 51 }),
  zip('a second end record after the first', threeFiles, [INVALID, /./], { after: endRecord(0, 0, 0) }),
  zip('an end record hidden in the comment', threeFiles, [INVALID, /more than one end-of-central-directory/], { comment: endRecord(1, 46 + 5, 0) }),
  zip('a local entry the directory does not list', [{ path: 'hidden/../../evil', content: 'x', hidden: true }, { path: 'safe.txt' }], [INVALID, /belong to no entry/]),
  zip('a local entry hidden between two listed ones', [{ path: 'a.txt' }, { path: '../evil', hidden: true }, { path: 'b.txt' }], [INVALID, /belong to no entry/]),
  zip('bytes before the first entry', [{ path: 'a.txt' }], [INVALID, /belong to no entry/], { before: Buffer.from('#!/bin/sh\nexit 0\n') }),
  zip('a Unicode path field that disagrees', [{ path: 'safe.txt', unicodePath: '../evil', content: 'x' }], [UNSAFE, /Unicode path extra field naming it "\.\.\/evil"/]),
  zip('a directory attribute without a trailing slash', [{ path: 'd', host: 0, mode: 0, dosAttributes: 0x10 }, { path: 'd/a' }], [UNSAFE, /directory by its attributes but not by its name/]),
  zip('a directory mode without a trailing slash', [{ path: 'd', mode: 0o040755 }], [UNSAFE, /directory by its attributes/]),
  zip('a directory with contents', [{ path: 'd/', content: 'x' }], [UNSAFE, /directory with 1 bytes/]),
  zip('a regular-file mode on a directory name', [{ path: 'd/', mode: 0o100644 }], [UNSAFE, /regular file by its attributes/]),
  zip('a name twice', [{ path: 'a.txt', content: '1' }, { path: 'a.txt', content: '2' }], [UNSAFE, /appears twice/]),
  zip('names that differ only in case', [{ path: 'Makefile' }, { path: 'makefile' }], [UNSAFE, /differs only in case/]),
  // bsdtar reads a name flagged UTF-8 in NFC, unzip and zipfile as written: so no such name may be in NFD.
  zip('a UTF-8 name in NFD', [{ path: NFD }, { path: 'cafe.txt' }], [UNSAFE, NOT_NFC]),
  zip('one name in NFD and in NFC', [{ path: NFC }, { path: NFD }], [UNSAFE, NOT_NFC]),
  zip('a file, then something inside it', [{ path: 'a' }, { path: 'a/b' }], [UNSAFE, /inside "a"/]),
  zip('an absolute path', [{ path: '/tmp/nodus-mock-corpus-escape' }], [UNSAFE, /absolute/]),
  zip('a drive letter', [{ path: 'C:evil' }], [UNSAFE, /absolute/]),
  zip('a path that climbs out', [{ path: 'a/../../evil' }], [UNSAFE, /climbs out/]),
  zip('a backslash', [{ path: '..\\evil' }], [UNSAFE, /backslash/]),
  zip('a UTF-8 flag on bytes that are not UTF-8', [{ path: 'x', rawName: Buffer.from([0x63, 0xe9]), utf8: true }], [UNSAFE, /not valid UTF-8/]),
  { what: 'a zip64 archive', name: 'zip64.zip', data: zipOf([{ path: 'big.txt', content: 'abc', zip64: true }, { path: 'small.txt' }], { zip64: {} }), accepted: true },
  zip('a zip64 end record that counts fewer entries', threeFiles, [INVALID, /counts 1 entries/], { zip64: { count: 1 } }),
  zip('a zip64 end record that disagrees with the end record', threeFiles, [INVALID, /end record and zip64 end record disagree/], { zip64: { count: 1, saturate: false } }),
  { what: 'a zip64 locator that points elsewhere', name: 'z.zip', data: ((z) => patch(z, z.length - 42 + 8, 0))(zipOf(threeFiles, { zip64: {} })), refused: [INVALID, /zip64 end record is not where its locator says/] },
  zipOfTwo('an end record on another disk', patch(two, 174 + 4, 1, 2), [INVALID, /more than one disk/]),
  zipOfTwo('an entry on another disk', patch(two, 72 + 34, 1, 2), [INVALID, /more than one disk/]),
  zipOfTwo('a saturated size without its zip64 field', patch(two, 72 + 24, 0xffffffff), [INVALID, /zip64 extra field is missing a value/]),
  zipOfTwo('a local header that is not there', patch(two, 36, 0), [INVALID, /local header of "b\.txt" is missing/]),
  zipOfTwo('local flags that differ', patch(two, 6, 0, 2), [UNSAFE, /"a\.txt" has a local header whose flags or method differs/]),
  zipOfTwo('a local name that runs past the entries', patch(two, 36 + 26, 0xffff, 2), [INVALID, /local header of "b\.txt" is cut short/]),
  zipOfTwo('data that runs into the directory', patch(patch(patch(patch(two, 18, 100), 22, 100), 72 + 20, 100), 72 + 24, 100), [INVALID, /data of "a\.txt" runs into the central directory/]),
  zipOfTwo('two records for one local entry', patch(two, 123 + 42, 0), [INVALID, /"b\.txt" overlaps the entry before it/]),
  zipOfTwo('a directory record that is something else', patch(two, 123, 0), [INVALID, /central directory is cut short or holds something else/]),
  zipOfTwo('a directory record that runs past the directory', patch(two, 123 + 28, 200, 2), [INVALID, /central directory is cut short/]),
  { what: 'a data descriptor that disagrees', name: 'd.zip', data: patch(zipOf([{ path: 'a.txt', content: 'abc', descriptor: true }]), 42, 0), refused: [UNSAFE, /local header whose data descriptor differs/] },
  zip('an extra field cut short', [{ path: 'a.txt', centralExtra: Buffer.from([0x55, 0x54, 0x10, 0x00]) }], [INVALID, /extra field is cut short/]),
  zip('an extra field twice', [{ path: 'a.txt', centralExtra: Buffer.from([0x55, 0x54, 1, 0, 0, 0x55, 0x54, 1, 0, 0]) }], [INVALID, /extra field 0x5455 twice/]),
  zip('an empty name', [{ path: '' }], [UNSAFE, /has an empty path/]),
  { what: 'more than 10,000 entries', name: 'many.zip', data: zipOf(Array.from({ length: 10_001 }, (_, i) => ({ path: `f${i}` }))), refused: ['too_many_files', /10000 entries/] },
  { what: 'a .zip that is not a zip', name: 'text.zip', data: Buffer.from('just text'), refused: [INVALID, /end-of-central-directory/] },
];

/** Archives that real tools wrote from one folder: each must be accepted, and read alike. */
function toolMade(scratch: string): Case[] {
  const source = join(scratch, 'source');
  for (const [path, content] of [['src/main.py', 'print(1)\n'], ['src/pkg/util.py', ''], ['data/space name.csv', 'a,b\n'], ['data/ünïcode.txt', 'u'], [`deep/${'d'.repeat(110)}/file.txt`, 'long']]) {
    mkdirSync(join(source, path, '..'), { recursive: true });
    writeFileSync(join(source, path), content);
  }
  const made: Array<[string, string, string[]]> = [
    ['GNU tar, gnu format', 'gnu.tar', ['tar', '--format=gnu', '-cf', 'OUT', '-C', source, '.']],
    ['GNU tar, posix format', 'posix.tar', ['tar', '--format=posix', '-cf', 'OUT', '-C', source, 'src', 'data', 'deep']],
    ['GNU tar, gzip', 'gnu.tar.gz', ['tar', '-czf', 'OUT', '-C', source, 'src', 'data']],
    ['bsdtar, pax format', 'bsd.tar', ['bsdtar', '--format', 'pax', '-cf', 'OUT', '-C', source, '.']],
    ['bsdtar, zip', 'bsd.zip', ['bsdtar', '--format', 'zip', '-cf', 'OUT', '-C', source, 'src', 'data', 'deep']],
    ['Python tarfile', 'py.tar', ['python3', '-c', 'import sys, tarfile\nwith tarfile.open(sys.argv[1], "w") as t: t.add(sys.argv[2], arcname="project")', 'OUT', source]],
    ['Python zipfile', 'py.zip', ['python3', '-c', 'import os, sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:\n  for d, _, fs in os.walk(sys.argv[2]):\n    for f in fs: z.write(os.path.join(d, f), os.path.relpath(os.path.join(d, f), sys.argv[2]))', 'OUT', source]],
  ];
  return made.map(([what, name, [command, ...args]]) => {
    const out = join(scratch, name);
    const res = spawnSync(command, args.map((a) => (a === 'OUT' ? out : a)), { env: { ...process.env, LC_ALL: 'C.UTF-8' } });
    if (res.status !== 0) throw new Error(`${what}: ${command} exited ${res.status}: ${res.stderr}`);
    return { what: `an archive ${what} wrote`, name, data: readFileSync(out), accepted: true as const };
  });
}

const formatOf = (name: string): ArchiveFormat => (name.endsWith('.zip') ? 'zip' : 'tar');

t.test('every archive of the corpus is refused, or listed as every common extractor reads it', async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'nodus-mock-corpus-'));
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
  const s = await startInProcess(t);
  const cases = [...tarCorpus, ...zipCorpus, ...toolMade(scratch)];
  let read = 0;
  for (const [i, c] of cases.entries()) {
    const res = await s.call('POST', `/v1/assets/upload?name=${encodeURIComponent(c.name)}`, { raw: c.data, headers: { 'content-type': 'application/octet-stream' } });
    const label = `${c.what} (${c.name})`;
    if (c.refused) {
      t.equal(res.status, 400, `${label}: refused (${res.text.slice(0, 200)})`);
      t.equal(res.body.error, c.refused[0], `${label}: ${res.body.message}`);
      t.match(res.body.message, c.refused[1], label);
    }
    if (c.accepted) t.equal(res.status, 201, `${label}: accepted (${res.text.slice(0, 300)})`);
    // Accepted, as expected or not: then every tool must read it as listed.
    if (res.status !== 201) continue;
    read++;
    const listing = (await s.call('GET', `/_mock/assets/${res.body.id}/files`)).body.files as Array<{ path: string; type: 'file' | 'directory'; bytes: number }>;
    const listed = new Map(listing.map((f) => [f.path, f]));
    const above = new Set(listing.flatMap((f) => f.path.split('/').slice(0, -1).map((_, j, parts) => parts.slice(0, j + 1).join('/'))));
    const dir = join(scratch, `case-${i}`);
    mkdirSync(dir);
    const path = join(dir, c.name);
    writeFileSync(path, c.data);
    for (const reading of await readWithTools(formatOf(c.name), path, dir, new Set(listed.keys()))) {
      const who = `${label}, ${reading.tool}`;
      t.equal(reading.failure, undefined, `${who}: reads it`);
      t.same([...reading.names].sort(), listing.map((f) => f.path).sort(), `${who}: lists the same names`);
      t.same(reading.outside, [], `${who}: writes nothing beside its folder`);
      for (const [at, found] of reading.tree) {
        const want = listed.get(at);
        if (!want) {
          t.ok(above.has(at) && found.type === 'directory', `${who}: "${at}" is a member or a folder above one (${found.type})`);
          continue;
        }
        t.equal(found.type, want.type, `${who}: "${at}" is a ${want.type}`);
        if (want.type === 'file') t.equal(found.bytes, want.bytes, `${who}: "${at}" holds ${want.bytes} bytes`);
      }
      for (const f of listing) t.ok(reading.tree.has(f.path), `${who}: extracts "${f.path}"`);
    }
  }
  t.ok(read >= 20, `${read} accepted archives were read by every tool`);
});
