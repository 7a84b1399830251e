// ESLint over lib/, spec/ and examples/: the classes of defect that let one request take the
// service down are errors. A promise nobody handles crashes Node (no-floating-promises,
// no-misused-promises), and a regular expression that backtracks super-linearly lets one request
// burn seconds of CPU (eslint-plugin-regexp).
import regexp from 'eslint-plugin-regexp'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'reports/', '.stryker-tmp/', '**/*.js', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@typescript-eslint': tseslint.plugin, regexp },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
    },
  },
)
