// docs/configuration.md is where a user looks a setting up: its table must be server/config.ts's
// OPTIONS, row for row.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { OPTIONS } from '../../server/config.js';
import { packageRoot } from '../../server/boot/package-info.js';

const rows = readFileSync(join(packageRoot(), 'docs', 'configuration.md'), 'utf8').split('\n').filter((line) => /^\| `--/.test(line));

t.test('the configuration table lists every option with its variable and default', async (t) => {
  for (const o of Object.values(OPTIONS)) {
    const row = rows.find((line) => line.startsWith(`| \`--${o.flag}\` |`));
    t.ok(row, `--${o.flag} has a row`);
    t.match(row, `| \`${o.env}\` |`);
    t.match(row, o.default === undefined ? /^\| [^|]+\| [^|]+\| \(/ : `| \`${o.default}\` |`, `--${o.flag} default`);
  }
});

t.test('every row of the table is an option', async (t) => {
  const flags = new Set<string>(Object.values(OPTIONS).map((o) => o.flag));
  const listed = rows.map((line) => /^\| `--([\w-]+)`/.exec(line)![1]);
  t.same(listed.filter((flag) => !flags.has(flag)), [], 'no row for a flag that does not exist');
  t.equal(listed.length, new Set(listed).size, 'no flag twice');
});
