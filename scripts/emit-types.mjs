// Writes dist/index.d.ts, the typings of the public entry point (package.json "types").
// `tsc --declaration` cannot do this: it emits declarations for every file the entry point
// imports, and the store's better-sqlite3 types cannot be named in a declaration file. The
// compiler API can emit and check one file, and index.ts declares its public types itself, but
// for the options, which it derives from the settings' table (server/config.ts): those are
// written out here as a plain interface, each setting with its help and the Node API's default.
import ts from 'typescript';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
const { OPTIONS, shownDefault } = await import(pathToFileURL(`${root}dist/server/config.js`).href);
const checker = program.getTypeChecker();
const OPTIONS_TYPE = 'MockServerOptions';
const alias = source.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === OPTIONS_TYPE);
if (!alias) throw new Error(`index.ts declares no type ${OPTIONS_TYPE}`);

/** The setting's line of --help, with the default the Node API gives it. */
function settingDoc(option) {
  const shown = shownDefault(option, true);
  const text = `${option.help} (default${'words' in shown ? `: ${shown.words}` : ` ${shown.value}${shown.size ? ` = ${shown.size}` : ''}`})`;
  if (text.includes('*/')) throw new Error(`--${option.flag}: its help would end the comment`);
  return `* ${text} `;
}

/** MockServerOptions as an interface of its resolved members, nothing of server/config.ts left. */
function optionsInterface(factory) {
  const members = checker.getTypeAtLocation(alias.name).getProperties().map((property) => {
    const type = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, alias));
    const member = factory.createPropertySignature(
      undefined,
      property.name,
      factory.createToken(ts.SyntaxKind.QuestionToken),
      checker.typeToTypeNode(type, alias, ts.NodeBuilderFlags.NoTruncation),
    );
    return ts.addSyntheticLeadingComment(member, ts.SyntaxKind.MultiLineCommentTrivia, settingDoc(OPTIONS[property.name]), true);
  });
  return factory.createInterfaceDeclaration(alias.modifiers, OPTIONS_TYPE, undefined, undefined, members);
}

/** Replaces the derived type, and drops what only it used: its helper alias and the settings' import. */
const writeOutOptions = (context) => (file) => {
  const statements = file.statements.flatMap((statement) => {
    if (ts.isImportDeclaration(statement) && statement.moduleSpecifier.text === './server/config.js') return [];
    if (!ts.isTypeAliasDeclaration(statement)) return [statement];
    if (statement.name.text === OPTIONS_TYPE) {
      return [ts.setCommentRange(optionsInterface(context.factory), ts.getCommentRange(statement))];
    }
    return statement.name.text === 'OptionValue' ? [] : [statement];
  });
  return context.factory.updateSourceFile(file, statements);
};

const result = program.emit(source, undefined, undefined, true, { afterDeclarations: [writeOutOptions] });
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
