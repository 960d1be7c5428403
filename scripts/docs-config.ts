// Writes the settings table of docs/configuration.md from server/config.ts's OPTIONS, between its
// markers (`npm run docs:config`); test/system/configuration-docs.test.ts fails when the committed
// table is not what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPTIONS, shownDefault, type OptionSpec } from '../server/config.js';
import { packageRoot } from '../server/boot/package-info.js';
import { withSection } from './marked-section.js';

export const BEGIN = '<!-- settings: generated from server/config.ts by `npm run docs:config` -->';
export const END = '<!-- settings end -->';

/** `|` would end a cell. */
const cell = (text: string) => text.replaceAll('|', '\\|');

function row(o: OptionSpec): string {
  const shown = shownDefault(o);
  const dflt = 'words' in shown ? `(${shown.words})` : `\`${shown.value}\`${shown.size ? ` (${shown.size})` : ''}`;
  // The table is a page of docs/: a link to another is relative to it.
  const meaning = (o.help + (o.more ?? '')).replaceAll('](docs/', '](');
  return `| \`--${o.flag}\` | \`${o.env}\` | ${dflt} | ${cell(meaning)} |`;
}

export function configurationTable(): string {
  return ['| flag | environment | default | meaning |', '|---|---|---|---|', ...Object.values(OPTIONS).map(row)].join('\n');
}

/** `markdown` with the text between the markers replaced by the table. */
export const withConfigurationTable = (markdown: string): string => withSection(markdown, BEGIN, END, configurationTable());

export const CONFIGURATION_DOC = join(packageRoot(), 'docs', 'configuration.md');

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  writeFileSync(CONFIGURATION_DOC, withConfigurationTable(readFileSync(CONFIGURATION_DOC, 'utf8')));
  process.stdout.write(`wrote ${CONFIGURATION_DOC}\n`);
}
