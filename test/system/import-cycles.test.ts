import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import t from '../helpers/tap.js';
import ts from 'typescript';
import { packageRoot } from '../../server/boot/package-info.js';

const root = packageRoot();
const FOLDERS = ['server', 'routes', 'store', 'openapi', 'test', 'scripts', 'bench'];

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : []);

/** Whether this statement loads the module at run time (TypeScript erases type-only imports). */
function loads(node: ts.Statement): node is (ts.ImportDeclaration | ts.ExportDeclaration) & { moduleSpecifier: ts.StringLiteral } {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return true;
    if (clause.isTypeOnly) return false;
    const bindings = clause.namedBindings;
    return Boolean(clause.name) || !bindings || ts.isNamespaceImport(bindings) || bindings.elements.some((e) => !e.isTypeOnly);
  }
  return ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier !== undefined;
}

/** Whether this statement imports or re-exports a module at all, if only its types. */
const names = (node: ts.Statement): node is (ts.ImportDeclaration | ts.ExportDeclaration) & { moduleSpecifier: ts.StringLiteral } =>
  (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier);

/** Each source file of `folders` with its relative imports (those `counts` keeps), as source paths. */
function importGraph(folders = FOLDERS, counts: (node: ts.Statement) => boolean = loads): Map<string, string[]> {
  const files = [...folders.flatMap((d) => sources(join(root, d))), join(root, 'index.ts')];
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    const deps = sf.statements
      .filter(names)
      .filter(counts)
      .map((s) => s.moduleSpecifier.text)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts'));
    graph.set(file, deps);
  }
  return graph;
}

/** One path round each cycle: the strongly connected components (Tarjan) with more than one module. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do component.push((w = stack.pop()!));
    while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.map((f) => relative(root, f)).sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

t.test('no two modules import each other, directly or round a loop, at run time', async (t) => {
  const graph = importGraph();
  t.ok(graph.size > 100, `read ${graph.size} source files`);
  t.same(cycles(graph), [], 'each entry lists the modules of one cycle');
});

t.test('nor when their types are counted: the shipped code\'s imports, type-only ones included, run one way', async (t) => {
  // A circle of type imports costs nothing at run time, but a reader who follows the types goes
  // round it: the unit of work's types stand in leaves (server/domain/unit.ts) for that reason.
  const graph = importGraph(['server', 'routes', 'store', 'openapi'], names);
  t.ok(graph.size > 100, `read ${graph.size} source files`);
  t.same(cycles(graph), [], 'each entry lists the modules of one cycle');
});

t.test('the check finds a cycle and ignores type-only imports', async (t) => {
  const a = join(root, 'a.ts');
  const b = join(root, 'b.ts');
  const c = join(root, 'c.ts');
  t.same(cycles(new Map([[a, [b]], [b, [c]], [c, [a]]])), [['a.ts', 'b.ts', 'c.ts']]);
  t.same(cycles(new Map([[a, [a]]])), [['a.ts']], 'a module importing itself');
  const parse = (text: string) => ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest).statements.filter(loads).length;
  t.equal(parse("import type { A } from './a.js';\nimport { type B } from './b.js';\nexport type { C } from './c.js';"), 0);
  t.equal(parse("import './a.js';\nimport { b, type B } from './b.js';\nimport * as c from './c.js';\nexport { d } from './d.js';"), 4);
  const named = (text: string) => ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest).statements.filter(names).length;
  t.equal(named("import type { A } from './a.js';\nimport { type B } from './b.js';\nexport type { C } from './c.js';\nexport const d = 1;"), 3, 'counting types, type-only imports count');
});
