// A require hook for child processes that run TypeScript (spec/support/app-process.ts): every `.ts`
// file is transpiled to CommonJS by TypeScript's transpileModule, without type checking (the specs'
// own type check covers these files). `node --require spec/support/ts-child.js entry.ts`.
const { readFileSync } = require('node:fs')
const ts = require('typescript')

const compilerOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  resolveJsonModule: true,
  inlineSourceMap: true,
  inlineSources: true,
}

process.setSourceMapsEnabled(true)

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(readFileSync(filename, 'utf8'), { compilerOptions, fileName: filename })
  module._compile(outputText, filename)
}
