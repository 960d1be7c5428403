// Which test folders run as one process each (see tap.ts), and which of their files still run in a
// process of their own: those that read what their process has built or registered, which earlier
// files of a group would have changed, and the longest, which finish sooner beside their group, on
// the other CPU, than in it. scripts/test.mjs reads this to give tap the suite's files; the build
// writes each folder's runner (writeGroupRunners), which runs its own.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const GROUPS: Readonly<Record<string, readonly string[]>> = {
  // zod's global registry and the lazily built wire schemas, as a fresh process has them.
  contract: ['lazy-schemas.test.js', 'openapi.test.js', 'wire-schemas.test.js'],
  domain: [],
  simulator: [],
  store: [],
  'routes/v1': [],
  'routes/mock': [],
  system: [
    'golden-transcript.test.js', // mocks nanoid for its own import of the server
    'launch-path.test.js', // traces the modules a request runs for the first time
    'pytest-plugin.test.js', // sets a timeout longer than a group gives a file
    'inspector.test.js',
    'layout.test.js',
    'restore-cli.test.js',
    'restore-crash.test.js',
    'verify.test.js',
  ],
};

export const GROUP_FILE = 'all.group.js';

/**
 * Writes each group's runner into its folder of the compiled suite at `testRoot` (scripts/build.mjs,
 * after tsc): the file tap runs for the group, the same two lines for every folder.
 */
export function writeGroupRunners(testRoot: string): void {
  for (const folder of Object.keys(GROUPS)) {
    const tapHelper = relative(join(testRoot, folder), join(testRoot, 'helpers', 'tap.js'));
    writeFileSync(join(testRoot, folder, GROUP_FILE), `import { runGroup } from '${tapHelper}';\nawait runGroup(import.meta.url);\n`);
  }
}

function* testFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* testFiles(path);
    else if (entry.name.endsWith('.test.js')) yield path;
  }
}

/** The files of a group's folder that its process runs. */
export function groupMembers(testRoot: string, folder: string): string[] {
  const alone = GROUPS[folder];
  if (!alone) throw new Error(`test/helpers/groups.ts names no group ${folder}`);
  return [...testFiles(join(testRoot, folder))].filter((file) => !alone.includes(relative(join(testRoot, folder), file)));
}

/** What tap runs for the whole suite: each group's runner, and every file no group runs. */
export function suiteFiles(testRoot: string): string[] {
  const runnerOf = new Map<string, string>();
  for (const [folder, alone] of Object.entries(GROUPS)) {
    const runner = join(testRoot, folder, GROUP_FILE);
    if (!existsSync(runner)) throw new Error(`test/${folder} has no ${GROUP_FILE}: npm run build writes it`);
    // A name left behind by a rename would quietly put the renamed file back into its group.
    for (const name of alone) {
      if (!existsSync(join(testRoot, folder, name))) throw new Error(`test/helpers/groups.ts: test/${folder} has no ${name}`);
    }
    for (const file of groupMembers(testRoot, folder)) runnerOf.set(file, runner);
  }
  return [...new Set([...testFiles(testRoot)].map((file) => runnerOf.get(file) ?? file))];
}
