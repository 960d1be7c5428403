import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from '../helpers/tap.js';
import { packageRoot } from '../../server/boot/package-info.js';

const root = packageRoot();
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const readme = read('README.md');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

t.test('the quick start is the two commands', async (t) => {
  const quick = readme.split('## Quick start')[1].split('##')[0];
  t.match(quick, 'npm ci && npm start');
  t.match(quick, 'npm test');
});

t.test('the README stays short enough to read in five minutes', async (t) => {
  const lines = readme.split('\n').length;
  t.ok(lines <= 260, `${lines} lines`);
});

t.test('the README maps every page of docs/', async (t) => {
  for (const page of pages.filter((p) => p !== 'README.md')) t.match(readme, `](${page})`, page);
});


/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\s-]/g, '').replace(/\s/g, '-');

t.test('every relative link of the README and docs/ reaches a file, and its anchor a heading', async (t) => {
  for (const page of pages) {
    // Code blocks hold no links, and their shell syntax looks like some.
    const text = read(page).replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [file, hash] = target.split('#');
      const path = file === '' ? page : join(dirname(page), file);
      t.ok(existsSync(join(root, path)), `${page} → ${target}`);
      if (hash === undefined || !path.endsWith('.md') || !existsSync(join(root, path))) continue;
      const headings = [...read(path).replace(/```[\s\S]*?```/g, '').matchAll(/^#+ (.*)$/gm)].map((m) => anchor(m[1]));
      t.ok(headings.includes(hash), `${page} → ${target}: the heading exists`);
    }
  }
});
