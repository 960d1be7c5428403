// ESLint flat config: the recommended JavaScript and typescript-eslint rules over every folder tsc
// compiles, plus the build scripts.
import js from '@eslint/js';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.tap/', 'node_modules/'] },
  {
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    rules: {
      // `_`-prefixed names are parameters a signature requires and the body does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      // The contract refuses control characters in text, so the patterns that name them are the point.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['scripts/**/*.mjs', '*.js'],
    // The Node globals these plain scripts use (TypeScript files get theirs from @types/node).
    languageOptions: {
      globals: Object.fromEntries(
        ['process', 'console', 'URL', 'Buffer', 'fetch', 'setTimeout', 'AbortSignal'].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['ui/**/*.js'],
    // The inspector's modules run in the browser: the page's globals, nothing of Node.
    languageOptions: {
      globals: Object.fromEntries(
        ['window', 'document', 'location', 'history', 'sessionStorage', 'fetch', 'URL', 'URLSearchParams', 'Node', 'setTimeout']
          .map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // Tests read untyped JSON answers field by field; typing each one would restate the schemas.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The server's own code, with types: a promise nobody awaits or a thenable handed where a plain
    // return is expected loses errors silently. Tests are left out: tap's subtests are not awaited.
    files: ['server/**/*.ts', 'routes/**/*.ts', 'store/**/*.ts', 'openapi/**/*.ts', 'index.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: dirname(fileURLToPath(import.meta.url)) } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
);
