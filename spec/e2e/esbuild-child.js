// A require hook for the demo's process in the browser specs: every `.ts` file is transpiled to
// CommonJS by esbuild, without type checking (`npm run typecheck` covers these files). Several times
// faster to start than spec/support/ts-child.js (TypeScript's transpileModule), and each browser
// spec file starts a demo of its own. `node --require spec/e2e/esbuild-child.js entry.ts`.
const { readFileSync } = require('node:fs')
const { transformSync } = require('esbuild')

process.setSourceMapsEnabled(true)

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    loader: 'ts',
    format: 'cjs',
    target: 'es2022',
    sourcemap: 'inline',
    sourcefile: filename,
  })
  module._compile(code, filename)
}
