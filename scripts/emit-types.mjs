// Writes dist/index.d.ts, the typings of the public entry point (package.json "types").
// `tsc --declaration` cannot do this: it emits declarations for every file the entry point
// imports, and the store's better-sqlite3 types cannot be named in a declaration file. The
// compiler API can emit and check one file, and index.ts declares its public types itself.
import ts from 'typescript';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = fileURLToPath(new URL('../index.ts', import.meta.url));

const config = ts.getParsedCommandLineOfConfigFile(
  `${root}tsconfig.json`,
  { declaration: true, emitDeclarationOnly: true, sourceMap: false },
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail([d]) },
);
if (config.errors.length) fail(config.errors);

const program = ts.createProgram({ rootNames: [entry], options: config.options });
const source = program.getSourceFile(entry);
const diagnostics = [...program.getSemanticDiagnostics(source), ...program.getDeclarationDiagnostics(source)];
if (diagnostics.length) fail(diagnostics);
const result = program.emit(source, undefined, undefined, true);
if (result.diagnostics.length) fail(result.diagnostics);

function fail(list) {
  process.stderr.write(
    ts.formatDiagnostics(list, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => root,
      getNewLine: () => '\n',
    }),
  );
  process.exit(1);
}
