// ESLint for the server (src/), the tests (test/), the web app (web/src/), scripts/ and bench/.
// Type-aware rules run through typescript-eslint's project service: each file is checked against
// the tsconfig.json nearest to it (the root one, web/tsconfig.json, bench/tsconfig.json).
// Module boundaries are not here: dependency-cruiser checks them (.dependency-cruiser.cjs).
// Formatting is Prettier's (eslint-config-prettier turns off every rule that would disagree).
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['**/node_modules/**', 'dist/**', 'drizzle/**', 'coverage/**', 'data/**', '.data*/**', '.tmp/**', 'test-results/**', 'bench/results/**', 'docs/**'],
  },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'web/src/**/*.{ts,tsx}', 'scripts/**/*.ts', 'bench/**/*.ts'],
    extends: [eslint.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // `typeof import('...')` stays allowed: vitest's `importOriginal<typeof import(...)>()` idiom needs it.
      '@typescript-eslint/consistent-type-imports': ['error', { disallowTypeAnnotations: false }],
      // The values passed to String() here are untyped JSON fields (unknown) turned into text on purpose.
      '@typescript-eslint/no-base-to-string': 'off',
      // `row!` after an indexed read states that the row exists; tsc sees it as redundant only because noUncheckedIndexedAccess is off.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Async methods that satisfy a promise-returning port or fake are async on purpose (a throw becomes a rejection).
      '@typescript-eslint/require-await': 'off',
      // The regexes that mention control characters exist to strip or refuse them.
      'no-control-regex': 'off',
    },
  },
  {
    // Business time is the injected Clock (tests move it); systemNow() names the few reads of machine time.
    files: ['src/modules/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Read the time from the injected Clock (clock.now()), or systemNow() (platform/clock) for machine time; not new Date().',
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Read the time from the injected Clock (clock.now()), or systemNow() (platform/clock) for machine time; not Date.now().',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts', 'scripts/screenshots.*.ts'],
    rules: {
      // Tests read HTTP and socket payloads as `any` and assert on them; typing every body adds nothing the assertions miss.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off', // same reason: untyped JSON bodies in assertions
      '@typescript-eslint/no-unsafe-argument': 'off', // same reason
      '@typescript-eslint/no-unsafe-call': 'off', // same reason
      '@typescript-eslint/no-unsafe-return': 'off', // same reason
      '@typescript-eslint/no-explicit-any': 'off', // tests poke at fakes and private state on purpose
      '@typescript-eslint/restrict-template-expressions': 'off', // tests build requests from Buffers and URLSearchParams by their toString
    },
  },
  {
    files: ['scripts/**/*.mjs', '*.js'],
    extends: [eslint.configs.recommended],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', fetch: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } },
  },
  prettier,
);
