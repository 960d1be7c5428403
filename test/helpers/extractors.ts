/**
 * The extractors users have: GNU tar, bsdtar (libarchive), Python's tarfile and zipfile, Info-ZIP
 * unzip. Each lists an archive and extracts it into a folder of its own, as it does by default
 * (tarfile with no filter, the trusting default before Python 3.14); what it listed, what it
 * wrote and anything it wrote beside its folder are what the archive tests compare with the mock.
 */
import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cp437 } from '../../server/domain/assets/zip.js';

export type ArchiveFormat = 'tar' | 'zip';

export interface Reading {
  tool: string;
  /** What the tool lists, normalised as the mock normalises paths (no `./`, no trailing `/`). */
  names: string[];
  /** What its extraction left, by relative path. */
  tree: Map<string, { type: 'file' | 'directory' | 'symlink' | 'other'; bytes: number }>;
  /** Anything written beside the extraction folder. */
  outside: string[];
  /** Set when the tool failed to list or extract. */
  failure?: string;
}

/** Lists the archive, extracts it into `out`, and answers the names it listed, as bytes. */
interface Tool {
  name: string;
  read: (file: string, out: string) => Promise<Buffer[]>;
}

const PYTHON = String.raw`
import json, sys, tarfile, zipfile
fmt, path, out = sys.argv[1:4]
if fmt == 'tar':
    with tarfile.open(path) as t:
        names = t.getnames()
        t.extractall(out)
else:
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        z.extractall(out)
print(json.dumps(names))
`;

const ENV = { ...process.env, LC_ALL: 'C.UTF-8' };

function run(command: string, args: string[], input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: ENV, timeout: 60_000 });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.stdin.on('error', () => {}); // a tool that refuses early closes its stdin
    child.stdin.end(input);
    child.on('error', (e) => reject(new Error(`${command} could not run (${e.message}); install GNU tar, libarchive-tools, unzip and python3 (.ci/run does)`)));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString().trim().slice(0, 400)}`));
    });
  });
}

function lines(out: Buffer): Buffer[] {
  const found: Buffer[] = [];
  for (let at = 0; at < out.length;) {
    const end = out.indexOf(0x0a, at);
    const line = out.subarray(at, end === -1 ? out.length : end);
    if (line.length) found.push(line);
    at = end === -1 ? out.length : end + 1;
  }
  return found;
}

/** bsdtar lists a name's bytes that are not UTF-8 as `\ooo`. */
const unescape = (line: Buffer) => Buffer.from(line.toString('latin1').replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))), 'latin1');

const python = (fmt: ArchiveFormat) => async (file: string, out: string) =>
  (JSON.parse((await run('python3', ['-c', PYTHON, fmt, file, out])).toString('utf8')) as string[]).map((n) => Buffer.from(n));

/** A command-line tool: `list` then `extract`, each given the file (or its bytes on stdin). */
function cli(name: string, command: string, list: string[], extract: string[], viaStdin = false): Tool {
  return {
    name,
    async read(file, out) {
      const input = viaStdin ? readFileSync(file) : undefined;
      const at = (args: string[]) => args.map((a) => (a === 'FILE' ? (viaStdin ? '-' : file) : a === 'OUT' ? out : a));
      const names = lines(await run(command, at(list), input)).map(command === 'bsdtar' ? unescape : (l) => l);
      await run(command, at(extract), input);
      return names;
    },
  };
}

const TOOLS: Record<ArchiveFormat, Tool[]> = {
  tar: [
    cli('GNU tar', 'tar', ['--quoting-style=literal', '-tf', 'FILE'], ['-xf', 'FILE', '-C', 'OUT']),
    cli('bsdtar', 'bsdtar', ['-tf', 'FILE'], ['-xf', 'FILE', '-C', 'OUT']),
    { name: 'Python tarfile', read: python('tar') },
  ],
  zip: [
    cli('Info-ZIP unzip', 'unzip', ['-Z1', 'FILE'], ['-qq', '-o', 'FILE', '-d', 'OUT']),
    { name: 'Python zipfile', read: python('zip') },
    cli('bsdtar', 'bsdtar', ['-tf', 'FILE'], ['-xf', 'FILE', '-C', 'OUT']),
    cli('bsdtar, streaming', 'bsdtar', ['-tf', 'FILE'], ['-xf', 'FILE', '-C', 'OUT'], true),
  ],
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A name's bytes as the mock would spell it: UTF-8 when they are; otherwise the tool kept a zip
 * name's legacy bytes (unzip and bsdtar write them as they are, or as Latin-1), and the name is
 * the listed one when it reads as that under CP437 or Latin-1.
 */
function spell(bytes: Buffer, listed: ReadonlySet<string>): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return [cp437(bytes), bytes.toString('latin1')].find((n) => listed.has(n)) ?? bytes.toString('latin1');
  }
}

export const normalise = (name: string) => name.split('/').filter((s) => s !== '' && s !== '.').join('/');

function walk(root: Buffer, at: Buffer[], spelled: (b: Buffer) => string, tree: Reading['tree']): void {
  const dir = Buffer.concat([root, ...at.flatMap((s) => [Buffer.from('/'), s])]);
  for (const entry of readdirSync(dir, { encoding: 'buffer' })) {
    const segments = [...at, entry];
    const full = Buffer.concat([dir, Buffer.from('/'), entry]);
    const stat = lstatSync(full);
    const type = stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : 'other';
    tree.set(spelled(Buffer.concat(segments.flatMap((s, i) => (i ? [Buffer.from('/'), s] : [s])))), { type, bytes: type === 'file' ? stat.size : 0 });
    if (type === 'directory') walk(root, segments, spelled, tree);
  }
}

/** Every tool's reading of `file`, all at once, each extracting into its own folder under `scratch`; `listed` is the mock's listing. */
export function readWithTools(format: ArchiveFormat, file: string, scratch: string, listed: ReadonlySet<string>): Promise<Reading[]> {
  const spelled = (b: Buffer) => normalise(spell(b, listed));
  return Promise.all(TOOLS[format].map(async (tool, i) => {
    const home = join(scratch, `tool-${i}`);
    const out = join(home, 'out');
    mkdirSync(out, { recursive: true });
    const reading: Reading = { tool: tool.name, names: [], tree: new Map(), outside: [] };
    try {
      reading.names = (await tool.read(file, out)).map(spelled).filter((n) => n !== '');
    } catch (err) {
      reading.failure = (err as Error).message;
    }
    walk(Buffer.from(out), [], spelled, reading.tree);
    reading.outside = readdirSync(home).filter((n) => n !== 'out');
    return reading;
  }));
}
