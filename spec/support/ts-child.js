// A require hook for child processes that run TypeScript (spec/support/app-process.ts): every `.ts`
// file is transpiled to CommonJS by TypeScript's transpileModule, without type checking (the specs'
// own type check covers these files). `node --require spec/support/ts-child.js entry.ts`.
//
// The output is kept in node_modules/.cache/ts-child/, named by a hash of the TypeScript version,
// these options, the file's path and its content: the specs start dozens of app processes over the
// same lib/ files, and transpiling lib/ afresh cost each one about 4 s of CPU (TypeScript is not
// even loaded when every file is in the cache). A changed file gets a new name; an entry is written
// to a temporary name and renamed, so a process never reads one half written.
const { createHash } = require('node:crypto')
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs')
const { join } = require('node:path')

const cacheDir = join(__dirname, '../../node_modules/.cache/ts-child')
const tsVersion = require('typescript/package.json').version

let ts
const compilerOptions = () => ({
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  resolveJsonModule: true,
  inlineSourceMap: true,
  inlineSources: true,
})
// The options above, as they go into the hash (change both together).
const optionsKey = 'commonjs es2022 esModuleInterop resolveJsonModule inlineSourceMap inlineSources'

process.setSourceMapsEnabled(true)

require.extensions['.ts'] = (module, filename) => {
  const source = readFileSync(filename, 'utf8')
  const hash = createHash('sha256').update(`${tsVersion}\0${optionsKey}\0${filename}\0${source}`).digest('hex')
  const cached = join(cacheDir, `${hash}.js`)
  let outputText
  try {
    outputText = readFileSync(cached, 'utf8')
  } catch {
    ts ??= require('typescript')
    outputText = ts.transpileModule(source, { compilerOptions: compilerOptions(), fileName: filename }).outputText
    try {
      mkdirSync(cacheDir, { recursive: true })
      const partial = `${cached}.${process.pid}.tmp`
      writeFileSync(partial, outputText)
      renameSync(partial, cached)
    } catch {
      // No cache (a read-only node_modules): transpiled again next time.
    }
  }
  module._compile(outputText, filename)
}
