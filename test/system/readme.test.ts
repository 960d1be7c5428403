import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { OPTIONS } from '../../server/config.js';
import { packageRoot } from '../../server/boot/package-info.js';

const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');

t.test('the configuration table lists every option with its variable and default', async (t) => {
  for (const o of Object.values(OPTIONS)) {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`--${o.flag}\` |`));
    t.ok(row, `--${o.flag} has a row`);
    t.match(row, `\`${o.env}\``);
    if (o.default !== undefined) t.match(row, `\`${o.default}\``);
  }
});

t.test('the quick start is the two commands', async (t) => {
  const quick = readme.split('## Quick start')[1].split('##')[0];
  t.match(quick, 'npm ci && npm start');
  t.match(quick, 'npm test');
});
