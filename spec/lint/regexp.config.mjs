// Only the super-linear rules of eslint-plugin-regexp, without type information: fast enough for a spec.
import regexp from 'eslint-plugin-regexp'
import tseslint from 'typescript-eslint'

export default [
  {
    files: ['**/*.ts'],
    // lib/ disables other rules in places, with reasons; this config knows only two rules.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    languageOptions: { parser: tseslint.parser },
    plugins: { regexp },
    rules: { 'regexp/no-super-linear-backtracking': 'error', 'regexp/no-super-linear-move': 'error' },
  },
]
