import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { packageRoot } from '../../server/boot/package-info.js';

const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');

t.test('the quick start is the two commands', async (t) => {
  const quick = readme.split('## Quick start')[1].split('##')[0];
  t.match(quick, 'npm ci && npm start');
  t.match(quick, 'npm test');
});
