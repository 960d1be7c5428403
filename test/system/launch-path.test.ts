// docs/development.md's table of the launch path is the trace of one launch (scripts/launch-path.ts):
// a file joining or leaving the path changes the trace, and this fails until the table says so.
import { readFileSync } from 'node:fs';
import t from '../helpers/tap.js';
import { DEVELOPMENT_DOC, ROLES, traceLaunch, withLaunchPathTable } from '../../scripts/launch-path.js';

/**
 * The most files a keyed launch may run. The aim is 20 (route, hooks, domain, store, each once);
 * the path is longer today, and this bound only comes down: a file that joins the path must push
 * another off it.
 */
const MOST_FILES = 28;

t.test('the launch path the docs show is the one a keyed launch runs', async (t) => {
  const files = await traceLaunch();
  t.same(files.filter((file) => !(file in ROLES)), [], 'every file on the path says what it does for the launch (ROLES)');
  t.same(Object.keys(ROLES).filter((file) => !files.includes(file)), [], 'ROLES names no file the launch no longer runs');
  t.ok(files.length <= MOST_FILES, `a keyed launch runs ${files.length} files, at most ${MOST_FILES}`);
  const committed = readFileSync(DEVELOPMENT_DOC, 'utf8');
  t.equal(committed, withLaunchPathTable(committed, files), 'docs/development.md holds the traced table (npm run docs:launch-path)');
});
