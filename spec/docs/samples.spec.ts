import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import ts from 'typescript'
import { runSamples } from '../support/run-samples'

/**
 * Every TypeScript sample in the docs compiles against the package as it is. The ```ts blocks of
 * docs/*.md and README.md are written to a temporary folder, one file each, and type-checked as one
 * program (strict, Node's types, 'express-auth-service' mapped to lib/index.ts); a failure names
 * the doc, the line and TypeScript's message. So a renamed option, a changed callback type or a
 * sample that never compiled fails here, not in a user's editor. They are compiled twice: as a
 * CommonJS project (`esModuleInterop`) and as an ES module project (`"type": "module"`, `nodenext`),
 * where a default import of a CommonJS package such as ioredis is no class. Then each one runs, as
 * an ES module of an app (../support/run-samples.ts): a sample that throws, or leaves an error
 * unhandled, fails here. A block right after `<!-- not compiled: reason -->` is skipped: kept for
 * the few that cannot stand alone; one after `<!-- not run: reason -->` is compiled, not run (its
 * top level runs the reader's own code).
 */

const ROOT = path.resolve(__dirname, '../..')
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
]
const FENCE_START = /^```(?:ts|typescript)\s*$/
const FENCE_END = /^```\s*$/
const NOT_COMPILED = /^<!-- not compiled: (\S.*) -->$/
const NOT_RUN = /^<!-- not run: (\S.*) -->$/

interface Sample {
  /** The doc, relative to the repository: `docs/providers.md`. */
  doc: string
  /** The doc's line (1-based) of the block's first line of code. */
  line: number
  code: string
  /** Why it is compiled but not run, from `<!-- not run: reason -->` right before it. */
  notRun?: string
}

interface Skipped {
  doc: string
  line: number
  reason: string
}

function readSamples(): { samples: Sample[]; skipped: Skipped[] } {
  const samples: Sample[] = []
  const skipped: Skipped[] = []
  for (const doc of DOCS) {
    const lines = readFileSync(path.join(ROOT, doc), 'utf8').split('\n')
    for (let start = 0; start < lines.length; start++) {
      if (!FENCE_START.test(lines[start]!)) continue
      let end = start + 1
      while (end < lines.length && !FENCE_END.test(lines[end]!)) end++
      if (end === lines.length) throw new Error(`${doc}:${start + 1}: a \`\`\`ts block is never closed`)
      const before = lines
        .slice(0, start)
        .reverse()
        .find((line) => line.trim() !== '')
      const reason = NOT_COMPILED.exec(before?.trim() ?? '')?.[1]
      const notRun = NOT_RUN.exec(before?.trim() ?? '')?.[1]
      if (reason !== undefined) skipped.push({ doc, line: start + 1, reason })
      else samples.push({ doc, line: start + 2, code: lines.slice(start + 1, end).join('\n'), notRun })
      start = end
    }
  }
  return { samples, skipped }
}

/** Every name lib/index.ts exports (values and types alike): what a fragment may use unimported. */
function packageExports(): string[] {
  const index = readFileSync(path.join(ROOT, 'lib/index.ts'), 'utf8')
  return [...index.matchAll(/^export (?:type )?\{([^}]*)\} from/gm)].flatMap(([, list]) =>
    list!
      .split(',')
      .map((name) => name.trim().replace(/^type\s+/, ''))
      .filter((name) => name !== ''),
  )
}

/** What a block without imports (a fragment) is given: the package's exports, on one line. */
function importAllLine(): string {
  return `import { ${packageExports().join(', ')} } from 'express-auth-service'`
}

/**
 * Names a fragment may use without declaring them: the host app and values it reads from its own
 * configuration. Everything else a sample uses, it declares or imports.
 */
const PRELUDE = `
declare const app: import('express').Express
declare const config: import('express-auth-service').AuthOptions
declare const url: string
declare const secret: string
declare const clientId: string
declare const clientSecret: string
declare const providers: import('express-auth-service').Provider[]
`

/**
 * Minimal ambient modules for packages the samples name but the repository does not install (the
 * user installs them): declared only when TypeScript cannot resolve the real package, whose own
 * types are used whenever they are there. They declare the little the samples use.
 */
const FALLBACK_MODULES: Record<string, string> = {
  'passport-github2': `
    import OAuth2Strategy from 'passport-oauth2'
    export class Strategy extends OAuth2Strategy {
      constructor(options: { clientID: string; clientSecret: string; scope?: string[] }, verify: OAuth2Strategy.VerifyFunction)
    }`,
  pino: `
    interface LogFn { (fields: object, message?: string): void; (message: string): void }
    interface Logger { error: LogFn; warn: LogFn; info: LogFn; debug: LogFn; level: string }
    function pino(options?: { level?: string }): Logger
    export default pino`,
}

/**
 * How the app's own project is set up: a CommonJS project (`esModuleInterop`), or an ES module
 * project (`"type": "module"`, `module: nodenext`), where a default import of a CommonJS package is
 * its `module.exports` (so `import Redis from 'ioredis'` is no class there).
 */
type Project = 'commonjs' | 'module'

function typeCheck(samples: readonly Sample[], project: Project): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'doc-samples-'))
  try {
    // The samples import express, ioredis, nodemailer, pino… as an app would: from node_modules.
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir')
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ private: true, type: project }))
    const options: ts.CompilerOptions = {
      strict: true,
      noUncheckedIndexedAccess: true,
      noImplicitReturns: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts'],
      ...(project === 'module'
        ? { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext }
        : { module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 }),
      esModuleInterop: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
      typeRoots: [path.join(ROOT, 'node_modules/@types')],
      baseUrl: ROOT,
      paths: {
        'express-auth-service': ['lib/index.ts'],
        'express-auth-service/testing': ['lib/testing/index.ts'],
        'express-auth-service/resource': ['lib/resource/index.ts'],
      },
    }
    const support = path.join(dir, 'support')
    mkdirSync(support)
    const prelude = path.join(support, 'prelude.d.ts')
    writeFileSync(prelude, PRELUDE)
    const modules = path.join(support, 'modules.d.ts')
    writeFileSync(modules, fallbackModules(prelude, options))

    const importAll = importAllLine()
    const files = new Map<string, { sample: Sample; offset: number }>()
    for (const sample of samples) {
      const file = path.join(dir, `${sample.doc.replace(/\W/g, '-')}-${sample.line}.ts`)
      // A block without imports is a fragment: it gets the package's exports, on one line of its own.
      const fragment = !/^import\s/m.test(sample.code)
      writeFileSync(file, `${fragment ? `${importAll}\n` : ''}${sample.code}\nexport {}\n`)
      files.set(file, { sample, offset: fragment ? 1 : 0 })
    }
    const program = ts.createProgram({ rootNames: [prelude, modules, ...files.keys()], options })
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => describeDiagnostic(diagnostic, files, dir))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function fallbackModules(containingFile: string, options: ts.CompilerOptions): string {
  return Object.entries(FALLBACK_MODULES)
    .filter(([name]) => {
      const resolved = ts.resolveModuleName(name, containingFile, options, ts.sys).resolvedModule
      return resolved === undefined || !resolved.extension.startsWith('.d.')
    })
    .map(([name, body]) => `declare module '${name}' {${body}\n}\n`)
    .join('')
}

/** `docs/providers.md:27: Cannot find name 'clientID'. (TS2304)` */
function describeDiagnostic(
  diagnostic: ts.Diagnostic,
  files: ReadonlyMap<string, { sample: Sample; offset: number }>,
  dir: string,
): string {
  const message = `${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')} (TS${diagnostic.code})`
  const { file, start } = diagnostic
  if (!file || start === undefined) return message
  const { line } = file.getLineAndCharacterOfPosition(start)
  const found = files.get(path.resolve(file.fileName))
  if (!found) {
    const where = file.fileName.startsWith(dir) ? path.relative(dir, file.fileName) : path.relative(ROOT, file.fileName)
    return `${where}:${line + 1}: ${message}`
  }
  const { sample, offset } = found
  return `${sample.doc}:${sample.line + Math.max(line - offset, -1)}: ${message}`
}

describe('the code samples in the docs', () => {
  const { samples, skipped } = readSamples()

  it('finds the ```ts blocks of every doc, and each block it skips says why', () => {
    expect(samples.length).toBeGreaterThan(20)
    // Sparingly: a skipped sample is one the code no longer holds to.
    expect(skipped.length).toBeLessThanOrEqual(3)
    for (const { reason } of skipped) expect(reason.length).toBeGreaterThan(10)
  })

  it('compile against the package: strict, with Node’s types and the packages an app installs', () => {
    expect(typeCheck(samples, 'commonjs')).toEqual([])
  }, 180_000)

  it('compile in an ES module project too (`"type": "module"`, `module: nodenext`)', () => {
    expect(typeCheck(samples, 'module')).toEqual([])
  }, 180_000)

  it('run as written: each one an ES module of an app, none throws or leaves an error unhandled', async () => {
    const notRun = samples.filter((sample) => sample.notRun !== undefined)
    // Only a sample whose top level runs the reader's own code (their files, their database).
    expect(notRun.length).toBeLessThanOrEqual(3)
    for (const { notRun: reason } of notRun) expect(reason!.length).toBeGreaterThan(10)
    const runnable = samples
      .filter((sample) => sample.notRun === undefined)
      .map(({ doc, line, code }) => ({ where: `${doc}:${line}`, code }))
    expect(await runSamples(runnable, importAllLine())).toEqual([])
  }, 240_000)
})
