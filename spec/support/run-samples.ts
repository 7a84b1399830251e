import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { build, transform } from 'esbuild'

/**
 * Runs code samples as an app of the reader's would: each one an ES module of its own, in a folder
 * whose node_modules holds the packages the repository installs and `express-auth-service` built
 * from lib/ (CommonJS, as the tarball ships it, with the package's views beside it). The sample is
 * transpiled as it is written (TypeScript's types stripped) and imported by a small runner that
 * gives it the host app's values a fragment may use, points every `listen()` at a free port, and
 * waits `settle` ms after the import for the failures that come late (a rejected promise, an
 * 'error' event nobody listens for). A sample fails when its import throws, or anything is left
 * unhandled while it runs; the answer names the sample and what Node printed.
 */

const ROOT = path.resolve(__dirname, '../..')

export interface RunnableSample {
  /** `docs/session-stores.md:185`, for the messages. */
  where: string
  code: string
}

/** The runner: the names PRELUDE of spec/docs/samples.spec.ts declares, then the sample. */
const RUNNER = `
import net from 'node:net'
import { pathToFileURL } from 'node:url'
import express from 'express'
import { auth, email } from 'express-auth-service'

const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (...args) {
  // app.listen(3000, …) of a sample: any free port, so that samples and other apps never collide.
  if (typeof args[0] === 'number' || typeof args[0] === 'string') args[0] = 0
  const server = listen.apply(this, args)
  server.unref()
  return server
}
const fail = (kind) => (error) => {
  console.error(kind + ':', error && error.stack ? error.stack : error)
  process.exit(1)
}
process.on('uncaughtException', fail('uncaught exception'))
process.on('unhandledRejection', fail('unhandled rejection'))
globalThis.app = express()
globalThis.url = process.env.SERVICE_AUTH_URL
globalThis.secret = process.env.SERVICE_AUTH_SECRET
globalThis.clientId = 'sample-client'
globalThis.clientSecret = 'sample-client-secret'
globalThis.providers = [email({ from: 'auth@localhost', sendVerificationRequest: () => {} })]
globalThis.config = { providers: globalThis.providers }
void auth
try {
  await import(pathToFileURL(process.argv[2]).href)
} catch (error) {
  fail('the sample threw')(error)
}
setTimeout(() => process.exit(0), Number(process.argv[3]))
`

const SECRET_VALUE = 'a-sample-secret-of-at-least-32-characters'
const ENV: Record<string, string> = {
  SERVICE_AUTH_URL: 'http://localhost:3000/api/auth',
  SERVICE_AUTH_SECRET: SECRET_VALUE,
  AUTH_SECRET: SECRET_VALUE,
  SECRET: SECRET_VALUE,
  MY_SECRET: SECRET_VALUE,
  NEW_SECRET: SECRET_VALUE,
  OLD_SECRET: `old-${SECRET_VALUE}`,
  NEXTAUTH_URL: 'http://localhost:3000/api/auth',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  SMTP_URL: 'smtp://127.0.0.1:2525',
  GITHUB_CLIENT_ID: 'sample-github-id',
  GITHUB_CLIENT_SECRET: 'sample-github-secret',
  GOOGLE_CLIENT_ID: 'sample-google-id',
  GOOGLE_CLIENT_SECRET: 'sample-google-secret',
  KC_ID: 'sample-keycloak-id',
  KC_SECRET: 'sample-keycloak-secret',
}

/**
 * Stand-ins for packages the samples name but the repository does not install (the reader does),
 * used only when the real one is absent: as little as the samples need at start-up.
 */
const FALLBACK_PACKAGES: Record<string, string> = {
  'passport-github2': `
    const OAuth2Strategy = require('passport-oauth2')
    class Strategy extends OAuth2Strategy {
      constructor(options, verify) {
        super({ authorizationURL: 'https://github.com/login/oauth/authorize',
          tokenURL: 'https://github.com/login/oauth/access_token', ...options }, verify)
        this.name = 'github'
      }
    }
    module.exports = { Strategy }`,
}

/** The package as the tarball has it, under `dir`/node_modules, beside links to every other package. */
async function installPackage(dir: string): Promise<void> {
  const modules = path.join(dir, 'node_modules')
  mkdirSync(modules)
  for (const name of readdirSync(path.join(ROOT, 'node_modules'))) {
    if (name === '.bin' || name === 'express-auth-service') continue
    symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name), 'dir')
  }
  for (const [name, code] of Object.entries(FALLBACK_PACKAGES)) {
    if (existsSync(path.join(modules, name))) continue
    mkdirSync(path.join(modules, name))
    writeFileSync(path.join(modules, name, 'index.js'), code)
  }
  const packageDir = path.join(modules, 'express-auth-service')
  mkdirSync(packageDir)
  symlinkSync(path.join(ROOT, 'views'), path.join(packageDir, 'views'), 'dir')
  await build({
    entryPoints: {
      index: path.join(ROOT, 'lib/index.ts'),
      testing: path.join(ROOT, 'lib/testing/index.ts'),
      resource: path.join(ROOT, 'lib/resource/index.ts'),
    },
    outdir: path.join(packageDir, 'dist'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    packages: 'external',
    logLevel: 'silent',
  })
  const entry = (file: string) => ({ require: file, import: file, default: file })
  const manifest = {
    name: 'express-auth-service',
    main: 'dist/index.js',
    exports: {
      '.': entry('./dist/index.js'),
      './testing': entry('./dist/testing.js'),
      './resource': entry('./dist/resource.js'),
    },
  }
  writeFileSync(path.join(packageDir, 'package.json'), JSON.stringify(manifest))
}

function runNode(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...ENV, NODE_ENV: 'development' } })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
  })
}

/**
 * Runs each sample (prefixed by `header` when it has no imports of its own) and answers one line
 * per sample that failed: where it is, and the end of what Node printed.
 */
export async function runSamples(samples: readonly RunnableSample[], header: string, settle = 300): Promise<string[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'doc-samples-run-'))
  try {
    await installPackage(dir)
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }))
    writeFileSync(path.join(dir, 'runner.mjs'), RUNNER)
    const failures: string[] = []
    for (const [index, sample] of samples.entries()) {
      const fragment = !/^import\s/m.test(sample.code)
      const source = `${fragment ? `${header}\n` : ''}${sample.code}\nexport {}\n`
      const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'node20' })
      const file = path.join(dir, `sample-${index}.mjs`)
      writeFileSync(file, code)
      const result = await runNode(['runner.mjs', file, String(settle)], dir)
      if (result.code !== 0)
        failures.push(`${sample.where}: ${result.output.trim().split('\n').slice(0, 8).join('\n')}`)
    }
    return failures
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
