import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import t from '../helpers/tap.js';
import ts from 'typescript';
import { packageRoot } from '../../server/boot/package-info.js';
import { GROUP_FILE, GROUPS, groupMembers, suiteFiles } from '../helpers/groups.js';
import type { DomainContext } from '../../server/domain/context.js';
import type { TenantUnit } from '../../server/domain/unit.js';

/** Every TypeScript source of the shipped code, as paths from the package root. */
function sources(dir: string): string[] {
  return readdirSync(join(packageRoot(), dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const SHIPPED = [...sources('server'), ...sources('routes'), ...sources('store'), ...sources('openapi'), 'index.ts'];
/** Sources by path, read once; a test may put a probe in. */
const SOURCES = new Map<string, string>();
const text = (path: string) => SOURCES.get(path) ?? SOURCES.set(path, readFileSync(join(packageRoot(), path), 'utf8')).get(path)!;
const under = (path: string, ...folders: string[]) => folders.some((f) => path.startsWith(`${f}/`));

t.test('only routes/, server/http/ and the composition import Fastify', async (t) => {
  const composition = new Set(['server/app.ts']);
  for (const path of SHIPPED) {
    if (under(path, 'routes', 'server/http') || composition.has(path)) continue;
    t.notMatch(text(path), /from '(fastify|@fastify\/[^']+|fastify-[^']+)'/, `${path} imports no Fastify`);
  }
});

t.test('SQL is spoken in store/ only', async (t) => {
  for (const path of SHIPPED) {
    if (under(path, 'store')) continue;
    t.notMatch(text(path), /\.(prepare|pragma)\(|\bdb\.exec\(|from 'better-sqlite3'/, `${path} runs no SQL`);
  }
});

t.test('no hook decides by the URL which surface a request is on', async (t) => {
  // Views may write links to /v1 paths; the hooks and plugins must not ask where a request goes.
  for (const path of SHIPPED.filter((p) => under(p, 'server/http') && !under(p, 'server/http/views'))) {
    // Whether a target is a path at all (origin-form, `/`) is not a surface: a prefix with a segment is.
    t.notMatch(text(path), /url\.startsWith\(['"`]\/\w|['"`]\/(v1|_mock)\b/, `${path} tests no URL prefix`);
  }
});

t.test('the domain imports nothing of the HTTP layer or the routes', async (t) => {
  for (const path of SHIPPED.filter((p) => under(p, 'server/domain', 'server/simulator', 'store', 'openapi'))) {
    for (const [, spec] of text(path).matchAll(/from '(\.[^']+)'/g)) {
      const target = relative(packageRoot(), join(packageRoot(), path, '..', spec));
      t.notOk(under(target, 'server/http', 'routes'), `${path} → ${target}`);
    }
  }
});

/** The code without its comments: a comment may describe what the HTTP layer does with a value. */
const code = (path: string) => text(path).replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/[^\n]*/g, '$1');
const DOMAIN = SHIPPED.filter((p) => under(p, 'server/domain', 'server/simulator'));

t.test('the domain speaks no HTTP: no status numbers, header names or routes as values', async (t) => {
  for (const path of DOMAIN) {
    const body = code(path);
    t.notMatch(body, /\b(status|statusCode|code)\s*:\s*[1-5]\d\d\b|\b[1-5]\d\d as const\b/, `${path} returns no status number`);
    t.notMatch(body, /new \w*Error\(\s*[1-5]\d\d\b/, `${path} throws no status number`);
    t.notMatch(body, /'(GET|POST|PUT|PATCH|DELETE) \/[^']*'/, `${path} names no route as a value`);
    // One delivery attempt is the mock's one HTTP client: the headers it sends are the webhook protocol's.
    if (path !== 'server/domain/webhooks/send.ts') {
      t.notMatch(body, /'(idempotent-replayed|idempotency-key|content-type|retry-after|etag|cache-control|x-nodus-[a-z0-9-]+|x-request-id)'/i, `${path} names no header`);
    }
  }
});

/** What the domain's imports of store/ name, read with TypeScript's own parser: each with whether it is a type only. */
function storeImports(path: string): { target: string; name: string; typeOnly: boolean }[] {
  const file = ts.createSourceFile(path, text(path), ts.ScriptTarget.Latest, true);
  const found: { target: string; name: string; typeOnly: boolean }[] = [];
  const resolve = (spec: string) => relative(packageRoot(), join(packageRoot(), path, '..', spec)).replace(/\.js$/, '.ts');
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const target = resolve(node.moduleSpecifier.text);
      if (under(target, 'store')) {
        if (ts.isImportDeclaration(node)) {
          const clause = node.importClause;
          const whole = !clause || clause.isTypeOnly;
          if (!clause) found.push({ target, name: '(side effects)', typeOnly: false });
          if (clause?.name) found.push({ target, name: clause.name.text, typeOnly: whole });
          const bindings = clause?.namedBindings;
          if (bindings && ts.isNamespaceImport(bindings)) found.push({ target, name: `* as ${bindings.name.text}`, typeOnly: whole });
          if (bindings && ts.isNamedImports(bindings)) {
            for (const e of bindings.elements) found.push({ target, name: (e.propertyName ?? e.name).text, typeOnly: whole || e.isTypeOnly });
          }
        } else {
          found.push({ target, name: '(re-export)', typeOnly: node.isTypeOnly });
        }
      }
    }
    // `import('…')` as a value, and `import('…').Name` as a type.
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      const target = resolve(node.arguments[0].text);
      if (under(target, 'store')) found.push({ target, name: '(dynamic import)', typeOnly: false });
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const target = resolve(node.argument.literal.text);
      if (under(target, 'store')) found.push({ target, name: node.qualifier?.getText() ?? '(module)', typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The modules that are the store as a whole (its connection, its transactions), not a table's rows. */
const WHOLE_STORE = new Set(['store/index.ts', 'store/db.ts', 'store/transactions.ts', 'store/sqlite-addon.ts', 'store/tenant-cache.ts']);
/** Values of store/ the domain shares that are rules, not table stores: the open-mode tenant id, the snapshot's tables and the row error a restore names. */
const SHARED_VALUES = new Set(['ownTenantId', 'OWN_TENANT_ID', 'SNAPSHOT_TABLES', 'SnapshotRowError']);
/** The unit of work holds the Store; the composition builds it and the domain's ports from it. */
const HOLD_THE_STORE = new Set(['server/domain/unit-of-work.ts', 'server/domain/services.ts']);
/**
 * The unit of work's own interface, its types apart from its code: its tables and ports are
 * written as parts of the Store, so it names the Store's type, and nothing else of the whole store.
 */
const UNIT_INTERFACE = 'server/domain/unit.ts';

/** Why a domain file's imports break the unit of work's hold on tenant state; none when they do not. */
function storeViolations(path: string): string[] {
  if (HOLD_THE_STORE.has(path)) return [];
  return storeImports(path).flatMap(({ target, name, typeOnly }) => {
    if (path === UNIT_INTERFACE && target === 'store/index.ts' && name === 'Store' && typeOnly) return [];
    if (WHOLE_STORE.has(target)) return [`${path} names ${name} of ${target}, the whole store`];
    if (!typeOnly && !SHARED_VALUES.has(name)) return [`${path} imports ${name} of ${target} as a value`];
    return [];
  });
}

/**
 * The members through which a transaction opens: the store's, the connection's (config.db is a
 * path), and a better-sqlite3 transaction function's (a table store's method made with
 * db.transaction).
 */
type Opens = 'write' | 'writeTogether' | 'transaction' | 'exec' | 'prepare' | 'immediate' | 'deferred' | 'exclusive';
/** The members of T, and of its members down to `depth` levels, through which a transaction opens. */
type Reaches<T, Depth extends unknown[] = []> = T extends object
  ? Extract<keyof T, Opens> | (Depth['length'] extends 4 ? never : Below<T, keyof T, Depth>)
  : never;
/** Reaches of each member named in K, one level further down. */
type Below<T, K, Depth extends unknown[]> = K extends keyof T ? Reaches<T[K], [...Depth, K]> : never;
/**
 * What opens a transaction from what the domain is given (its context, a unit), down to a table
 * store's methods: nothing. The journal's port is left out: its rows commit on their own, no
 * tenant state.
 */
type Leaks = Reaches<Omit<DomainContext, 'journal'>> | Reaches<TenantUnit>;
const leaksNothing: [Leaks] extends [never] ? true : false = true;

t.test('the domain reaches tenant state only through the unit of work: no table store, no Store, no transaction', async (t) => {
  const domain = SHIPPED.filter((p) => under(p, 'server/domain'));
  for (const path of domain) t.same(storeViolations(path), [], `${path} takes the store from no import`);
  t.ok(leaksNothing, 'no transaction is reachable from the context or a unit (a type-level check: the build fails first)');
  t.ok(storeImports('server/domain/unit-of-work.ts').some(({ target, name }) => target === 'store/index.ts' && name === 'Store'), 'the unit of work holds the Store');
  // The check itself, on imports a violation would write.
  const probe = 'server/domain/launches/layout-probe.ts';
  const check = (source: string, path = probe) => {
    const saved = SOURCES.get(path);
    SOURCES.set(path, source);
    try {
      return storeViolations(path);
    } finally {
      if (saved === undefined) SOURCES.delete(path);
      else SOURCES.set(path, saved);
    }
  };
  t.same(check("import type { WorkloadRow } from '../../../store/workloads.js';\nimport { OWN_TENANT_ID, type KeyMove } from '../../../store/tenants.js';"), [], 'row types and shared rules pass');
  t.equal(check("import { createWorkloadStore } from '../../../store/workloads.js';").length, 1, 'a table store as a value fails');
  t.equal(check("import type { Store } from '../../../store/index.js';").length, 1, 'the Store, even as a type, fails');
  t.equal(check("type S = import('../../../store/index.js').Store;").length, 1, 'so does a type import() of it');
  t.equal(check("const { openStore } = await import('../../../store/index.js');").length, 1, 'and a dynamic import');
  t.equal(check("import type { Db } from '../../../store/db.js';").length, 1, 'and the connection, whose transaction() opens one');
  t.same(check("import type { Store } from '../../store/index.js';", UNIT_INTERFACE), [], 'the unit\'s interface names the Store as a type');
  t.equal(check("import { openStore, type Store } from '../../store/index.js';", UNIT_INTERFACE).length, 1, 'but takes no value of it');
  t.equal(check("import type { Db } from '../../store/db.js';", UNIT_INTERFACE).length, 1, 'nor the connection');
});

/** The context carries no table stores: a unit hands out its own (a type-level check: the build fails first). */
const contextHasNoTables: 'tables' extends keyof DomainContext ? false : true = true;

/**
 * Where each domain file reaches a `Tables` (the table stores) as a member or a destructured name
 * other than a unit's (TenantUnit.tables), resolved by TypeScript's checker, not by the text: a
 * Pick of the context, a deps type of the module's own and a renamed binding all resolve to it.
 */
function tablesReaches(paths: string[]): Map<string, string[]> {
  const root = packageRoot();
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const host = ts.createCompilerHost(config.options);
  // A probe's text, or a source as the test holds it, before the file on disk.
  const held = (file: string) => SOURCES.get(relative(root, file));
  const { readFile, fileExists } = host;
  host.readFile = (file) => held(file) ?? readFile.call(host, file);
  host.fileExists = (file) => held(file) !== undefined || fileExists.call(host, file);
  const program = ts.createProgram(paths.map((p) => join(root, p)), { ...config.options, noEmit: true }, host);
  const checker = program.getTypeChecker();
  const inUnitInterface = (node: ts.Node) => node.getSourceFile().fileName.endsWith(UNIT_INTERFACE);
  const isTables = (type: ts.Type) => type.aliasSymbol?.name === 'Tables' && type.aliasSymbol.declarations?.some(inUnitInterface);
  // A unit's own tables: the member the TenantUnit interface declares.
  const ofUnit = (symbol: ts.Symbol) => symbol.declarations?.every((d) => ts.isInterfaceDeclaration(d.parent) && d.parent.name.text === 'TenantUnit' && inUnitInterface(d));
  const found = new Map<string, string[]>();
  for (const path of paths) {
    const file = program.getSourceFile(join(root, path))!;
    const reaches: string[] = [];
    const check = (symbol: ts.Symbol | undefined, at: ts.Node) => {
      if (!symbol || ofUnit(symbol) || !isTables(checker.getTypeOfSymbolAtLocation(symbol, at))) return;
      reaches.push(`${path}:${file.getLineAndCharacterOfPosition(at.getStart()).line + 1} ${at.getText()}`);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node)) check(checker.getSymbolAtLocation(node.name), node);
      if (ts.isElementAccessExpression(node) && ts.isStringLiteral(node.argumentExpression)) check(checker.getSymbolAtLocation(node.argumentExpression), node);
      if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const name = node.propertyName ?? node.name;
        if (ts.isIdentifier(name)) check(checker.getTypeAtLocation(node.parent).getProperty(name.text), node);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
    if (reaches.length) found.set(path, reaches);
  }
  return found;
}

t.test('the table stores are reached through a unit only', async (t) => {
  t.ok(contextHasNoTables, 'DomainContext has no tables');
  const domain = SHIPPED.filter((p) => under(p, 'server/domain') && !HOLD_THE_STORE.has(p));
  const probe = 'server/domain/secrets/layout-probe.ts';
  SOURCES.set(probe, [
    "import type { Tables, TenantUnit } from '../unit.js';",
    'export const direct = (deps: { tables: Tables }, t: string) => deps.tables.secrets.list(t);',
    "export const picked = (deps: { tables: Tables }, t: string) => { const { tables: renamed } = deps; return renamed.secrets.list(t); };",
    "export const own = (deps: { tables: Tables }, t: string) => deps['tables'].secrets.list(t);",
    'export const unit = (u: TenantUnit) => { const { tables } = u; return [tables.secrets.list(u.tenantId), u.tables.secrets.list(u.tenantId)]; };',
    '',
  ].join('\n'));
  let found: Map<string, string[]>;
  try {
    found = tablesReaches([...domain, probe]);
  } finally {
    SOURCES.delete(probe);
  }
  t.same(found.get(probe)?.map((r) => r.replace(/^[^ ]+ /, '')), ['deps.tables', 'tables: renamed', "deps['tables']"], 'the probe: tables carried in a deps type of a module\'s own fail, however reached; a unit\'s tables pass');
  found.delete(probe);
  t.same(Object.fromEntries(found), {}, 'no domain module reaches the tables outside a unit');
});

t.test('docs the code points to exist: pages of docs/, never the design notes outside the repository', async (t) => {
  for (const path of SHIPPED) {
    const body = text(path);
    t.notMatch(body.replace(/docs\/control-api\.md/g, ''), /control-api\.md/, `${path} names no document outside the repository`);
    for (const [page] of body.matchAll(/\bdocs\/[\w-]+\.md\b/g)) t.ok(existsSync(join(packageRoot(), page)), `${path} → ${page}`);
  }
});

t.test('npm test runs every test file once: in its folder\'s group, or in a process of its own', async (t) => {
  const root = join(packageRoot(), 'dist', 'test');
  const ran = suiteFiles(root).flatMap((file) => (file.endsWith(GROUP_FILE) ? groupMembers(root, relative(root, dirname(file))) : [file]));
  const every = (readdirSync(root, { recursive: true }) as string[]).filter((name) => name.endsWith('.test.js')).map((name) => join(root, name));
  t.same([...ran].sort(), every.sort());
  t.equal(new Set(ran).size, ran.length, 'none twice');

  // A file kept out of a group that its folder no longer has stops the suite, naming it.
  const probe = mkdtempSync(join(tmpdir(), 'nodus-mock-groups-'));
  t.teardown(() => rmSync(probe, { recursive: true, force: true }));
  for (const folder of Object.keys(GROUPS)) {
    mkdirSync(join(probe, folder), { recursive: true });
    writeFileSync(join(probe, folder, GROUP_FILE), '');
  }
  t.throws(() => suiteFiles(probe), /test\/contract has no lazy-schemas\.test\.js/);
});

t.test('the quick start describes the line npm test ends with, skipped tests included', async (t) => {
  // The runner itself, on a file with one passing and one skipped test, in a project folder of its
  // own: tap keeps its state (coverage too) under the project it runs in, and this run's must not
  // touch the suite's. With the suite's plugin set: tap rebuilds the set it finds built in the
  // node_modules shared with the suite when a project configures another, which rewrote it under
  // the suite's running test processes and left the next npm test to build it back.
  const dir = mkdtempSync(join(tmpdir(), 'nodus-mock-runner-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'scripts'));
  copyFileSync(join(packageRoot(), 'scripts', 'test.mjs'), join(dir, 'scripts', 'test.mjs'));
  symlinkSync(join(packageRoot(), 'node_modules'), join(dir, 'node_modules'));
  const { tap } = JSON.parse(text('package.json')) as { tap: { plugin: string[] } };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ type: 'module', tap: { plugin: tap.plugin } })}\n`);
  writeFileSync(join(dir, 'fixture.test.mjs'), "import t from 'tap';\nt.pass('runs');\nt.test('skipped', { skip: 'on purpose' }, async () => {});\n");
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TAP')));
  const built = join(packageRoot(), 'node_modules', '@tapjs', 'test', 'test-built', 'dist', 'esm', 'index.js');
  const builtAt = statSync(built).mtimeMs;
  const run = spawnSync(process.execPath, ['scripts/test.mjs', 'fixture.test.mjs'], { cwd: dir, env, encoding: 'utf8' });
  t.equal(statSync(built).mtimeMs, builtAt, 'the suite\'s tap plugins are left as built');
  const last = run.stdout.trimEnd().split('\n').pop();
  t.equal(last, '1 passed, 0 failed, 1 skipped', 'what scripts/test.mjs prints last');
  // The README's wording, with N for each number, is that line.
  const quickStart = /npm test +# (.*)/.exec(text('README.md'))![1];
  const [ends, skipped] = [/"(N passed, N failed)"/.exec(quickStart)?.[1], /"(, N skipped)"/.exec(quickStart)?.[1]];
  t.equal(`${ends}${skipped}`.replace(/N/g, '1').replace('1 failed', '0 failed'), last);

  // A failure is repeated, with its file and diagnostics, just above that line: CI keeps only part
  // of a long log.
  writeFileSync(join(dir, 'failing.test.mjs'), "import t from 'tap';\nt.pass('runs');\nt.equal(1, 2, 'one is two');\n");
  const failing = spawnSync(process.execPath, ['scripts/test.mjs', 'failing.test.mjs'], { cwd: dir, env, encoding: 'utf8' });
  t.equal(failing.status, 1, 'tap\'s exit code');
  const end = failing.stdout.slice(failing.stdout.lastIndexOf('\nfailures:\n')).trimEnd().split('\n');
  t.same(end.slice(1, 4), ['failures:', 'failing.test.mjs:', 'not ok 2 - one is two'], 'the file, then the assertion');
  t.ok(end.some((line) => /^\s*-2$/.test(line)) && end.some((line) => /^\s*\+1$/.test(line)), 'its diagnostics: the diff');
  t.equal(end.at(-1), '1 passed, 1 failed');

  // In a group's process (test/helpers/groups.ts) the file is the subtest its runner names by path.
  mkdirSync(join(dir, 'folder'));
  writeFileSync(join(dir, 'folder', 'all.group.js'), "import t from 'tap';\nt.test('folder/inner.test.js', async (t) => { t.test('a test', async (t) => { t.equal(1, 2, 'one is two'); }); });\n");
  const grouped = spawnSync(process.execPath, ['scripts/test.mjs', 'folder/all.group.js'], { cwd: dir, env, encoding: 'utf8' });
  const groupEnd = grouped.stdout.slice(grouped.stdout.lastIndexOf('\nfailures:\n')).trimEnd().split('\n');
  t.same(groupEnd.slice(1, 4), ['failures:', 'folder/inner.test.js:', 'not ok 1 - one is two'], 'the grouped file, then the assertion');
});
