// Writes the runner of each test group into the compiled suite, dist/test/<folder>/all.group.js:
// the file tap runs for that folder's files (test/helpers/groups.ts names the groups).
import { fileURLToPath } from 'node:url';
import { writeGroupRunners } from '../dist/test/helpers/groups.js';

writeGroupRunners(fileURLToPath(new URL('../dist/test', import.meta.url)));
