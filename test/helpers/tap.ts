// Test files take their `t` from here, not from tap, so that a folder's files can run in one
// process (the runner the build writes for each folder: test/helpers/groups.ts): each test process
// pays about two seconds before its first assertion (tap, its coverage loader, which on Node 20
// passes every import through a second thread, and the server's modules), and most files take less
// than that to run. In a group each file runs in a subtest of its own, named by its path, and `t`
// is that subtest while the file runs; a file run alone (`node scripts/test.mjs <file>`, or tap
// itself) gets tap's root.
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import tap, { type Test } from 'tap';
import { groupMembers } from './groups.js';

let current: Test | undefined;

const t = new Proxy(tap, {
  get(root, key) {
    const target = current ?? root;
    const value: unknown = Reflect.get(target, key, target);
    return typeof value === 'function' ? value.bind(target) : value;
  },
});
export default t;

/** What the runner gives one test process (package.json's tap section), given to each file of a group. */
const FILE_TIMEOUT_MS = Number(process.env.TAP_TIMEOUT ?? 30) * 1000;

/** Runs the group's files (groups.ts), one after another, each in a subtest of its own. */
export async function runGroup(groupUrl: string): Promise<void> {
  const testRoot = fileURLToPath(new URL('..', import.meta.url));
  const folder = relative(testRoot, fileURLToPath(new URL('.', groupUrl)));
  for (const file of groupMembers(testRoot, folder)) {
    // The runner's timer is the process's: each file starts a window of its own, as it would alone.
    tap.setTimeout(FILE_TIMEOUT_MS);
    await tap.test(relative(process.cwd(), file), async (sub) => {
      current = sub;
      await import(pathToFileURL(file).href);
    });
    current = undefined;
  }
}
