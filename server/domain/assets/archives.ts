import type { ArchiveKind } from '../../../store/assets.js';
import type { ArchiveEntry } from './archive-entries.js';
import { listTar } from './tar.js';
import { listZip } from './zip.js';

/**
 * The archive checks of the assets contract: an archive (tar, tar.gz or zip, known by its
 * name) may hold regular files and directories only, no links, devices or FIFOs, at safe relative
 * paths, and at most MAX_ARCHIVE_ENTRIES of them, and its listing is what every common extractor
 * would produce. Listing needs only the headers. Read here rather than by a package: the parsers
 * on npm (tar-stream, tar, yauzl, unzipper) each resolve the ambiguities this refuses (two long
 * names for one member, a local header that disagrees with the directory, an end record that
 * undercounts) by picking one reading silently, and a refusal needs to see both.
 */

export type { ArchiveEntry } from './archive-entries.js';

/** The archive a file name says it is, or null for a plain file. */
export function archiveKindOf(name: string): ArchiveKind | null {
  const lower = name.toLowerCase();
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) return 'tar.gz';
  if (lower.endsWith('.tar')) return 'tar';
  if (lower.endsWith('.zip')) return 'zip';
  return null;
}

/** The members of an archive, or the 400 that says what is wrong with it. */
export async function listArchive(kind: ArchiveKind, data: Buffer, name: string, maxExpandedBytes: number): Promise<ArchiveEntry[]> {
  if (kind === 'zip') return listZip(data, name);
  return listTar(data, name, kind === 'tar.gz', maxExpandedBytes);
}
