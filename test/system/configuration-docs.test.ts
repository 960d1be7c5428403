// docs/configuration.md is where a user looks a setting up: its table is written from
// server/config.ts's OPTIONS (`npm run docs:config`), and the committed one must be what that writes.
import { readFileSync } from 'node:fs';
import t from '../helpers/tap.js';
import { OPTIONS } from '../../server/config.js';
import { CONFIGURATION_DOC, configurationTable, withConfigurationTable } from '../../scripts/docs-config.js';

t.test('the committed configuration table is the one OPTIONS makes', async (t) => {
  const committed = readFileSync(CONFIGURATION_DOC, 'utf8');
  t.equal(committed, withConfigurationTable(committed), 'run `npm run docs:config` after changing a setting');
});

t.test('the table has one row per setting, with its variable and default', async (t) => {
  const rows = configurationTable().split('\n').filter((line) => line.startsWith('| `--'));
  t.equal(rows.length, Object.keys(OPTIONS).length);
  t.match(rows.find((r) => r.startsWith('| `--max-import-bytes` |')), '| `NODUS_MOCK_MAX_IMPORT_BYTES` | `67108864` (64 MiB) |');
  t.match(rows.find((r) => r.startsWith('| `--keys` |')), '| `NODUS_MOCK_API_KEYS` | (open mode) |');
});
