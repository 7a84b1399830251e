// Only the super-linear rules of eslint-plugin-regexp, without type information: fast enough for a spec.
import regexp from 'eslint-plugin-regexp'
import tseslint from 'typescript-eslint'

export default [{
  files: ['**/*.ts'],
  languageOptions: { parser: tseslint.parser },
  plugins: { regexp },
  rules: { 'regexp/no-super-linear-backtracking': 'error', 'regexp/no-super-linear-move': 'error' },
}]
