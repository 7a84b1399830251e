// ESLint over lib/, spec/ and examples/: typescript-eslint's type-checked rules and
// eslint-plugin-regexp. The classes of defect that let one request take the service down are
// errors: a promise nobody handles crashes Node (no-floating-promises, no-misused-promises), and a
// regular expression that backtracks super-linearly lets one request burn seconds of CPU.
import js from '@eslint/js'
import regexp from 'eslint-plugin-regexp'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'reports/', '.stryker-tmp/', '**/*.js', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked, regexp.configs['flat/recommended']],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
      // A route handler is `(ctx) => void | Promise<void>` (lib/core/context.ts): some are async without awaiting.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // The budgets of docs/style.md, held in lib/: a file of at most 300 lines, counted as `wc -l` does.
    // A function of at most 80 lines of code: ESLint counts a function with the closures inside it and
    // cannot measure a factory by its closures (as the style guide does), so comments and blank lines
    // are left out of the count instead, which lets a factory of small commented closures pass.
    files: ['lib/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 300 }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Specs read untyped JSON bodies from supertest and fetch all the time.
    files: ['spec/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // The browser scripts (plain JSX that esbuild bundles: the demo's client page, the single-page
    // app of spec/e2e/spa-access-token.spec.ts): the recommended rules, in a browser.
    files: ['examples/demo/client/**/*.jsx', 'spec/e2e/**/*.jsx'],
    extends: [js.configs.recommended],
    languageOptions: {
      parserOptions: { ecmaFeatures: { jsx: true } },
      globals: { document: 'readonly', window: 'readonly' },
    },
  },
)
