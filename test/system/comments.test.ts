import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from '../helpers/tap.js';
import ts from 'typescript';
import { packageRoot } from '../../server/boot/package-info.js';

const root = packageRoot();
const FOLDERS = ['server', 'routes', 'store', 'openapi', 'test', 'bench', 'scripts'];
/** Build output, installed packages and tool state: what a comment names is never one of these. */
const NOT_SOURCE = new Set(['node_modules', 'dist', 'coverage', '.tap', '.git']);

const walk = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) return NOT_SOURCE.has(e.name) ? [] : walk(path);
    return [path];
  });

const FILES = walk('');
const SOURCES = [...FOLDERS.flatMap(walk).filter((p) => /\.(ts|mjs)$/.test(p)), 'index.ts'];

/**
 * Every comment of a source file with its line: the scanner's comment ranges around every node and
 * token, and, in store/, the `--` comments of the SQL held in template literals.
 */
function comments(path: string, text: string): { line: number; text: string }[] {
  const kind = path.endsWith('.mjs') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const found = new Map<number, string>();
  const visit = (node: ts.Node) => {
    for (const r of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])]) {
      found.set(r.pos, text.slice(r.pos, r.end));
    }
    if (path.startsWith('store/') && ts.isNoSubstitutionTemplateLiteral(node)) {
      for (const m of node.getText(sf).matchAll(/--[^\n]*/g)) found.set(node.getStart(sf) + m.index, m[0]);
    }
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  return [...found].map(([pos, body]) => ({ line: sf.getLineAndCharacterOfPosition(pos).line + 1, text: body }));
}

/**
 * The file names a comment mentions: source and documents (`.ts`, `.mjs`, `.md`), bare or with
 * folders. Web addresses and dist/ (what the build writes) are not files of the repository.
 */
function mentions(comment: string): string[] {
  const text = comment.replace(/\b[a-z]+:\/\/\S+/g, '');
  return [...text.matchAll(/(?<![\w./-])(?:\.{1,2}\/)*([\w-][\w.-]*(?:\/[\w.-]+)*\.(?:ts|mjs|md))(?![\w/-])/g)]
    .map((m) => m[1])
    .filter((name) => !name.startsWith('dist/'));
}

/** A mention names a file when some file's path is it or ends with it at a folder boundary. */
const exists = (name: string) => FILES.some((file) => file === name || file.endsWith(`/${name}`));

/** Documents a reader of this repository does not have, and the decision list that lives in one. */
const OUTSIDE = /wire-contract|\bdesign\.md|design decision|sdk-behaviour|assets-webhooks|(?<!docs\/)control-api\.md/i;

t.test('the scanner finds names in comments of every form and nothing in code', async (t) => {
  const sample = [
    '// see routes/v1/index.ts and `outbox.ts`',
    'const path = "not/a/comment.ts";',
    '/** docs/webhooks.md, ../helpers/server.ts, https://example.com/x.md */',
    'const sql = `SELECT 1 -- kept.ts`;',
  ].join('\n');
  const found = comments('server/x.ts', sample).flatMap((c) => mentions(c.text));
  t.same(found, ['routes/v1/index.ts', 'outbox.ts', 'docs/webhooks.md', 'helpers/server.ts']);
  t.same(comments('store/x.ts', sample).flatMap((c) => mentions(c.text)).at(-1), 'kept.ts', 'SQL comments in store/');
  t.ok(exists('domain/webhooks/outbox.ts') && exists('outbox.ts') && !exists('bhooks/outbox.ts') && !exists('reset.md'));
});

t.test('every file a comment names exists in the repository', async (t) => {
  for (const path of SOURCES) {
    for (const c of comments(path, readFileSync(join(root, path), 'utf8'))) {
      for (const name of mentions(c.text)) t.ok(exists(name), `${path}:${c.line} names ${name}`);
    }
  }
});

t.test('no comment cites a document outside the repository', async (t) => {
  for (const path of SOURCES) {
    for (const c of comments(path, readFileSync(join(root, path), 'utf8'))) {
      t.notMatch(c.text, OUTSIDE, `${path}:${c.line} says the reason instead of citing it`);
    }
  }
});
