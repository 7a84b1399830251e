import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(__dirname, '..')

/**
 * The package as published (package.json, dist/lib, views), built into a directory of its own so
 * that it never races the demo's build in dist/.
 */
describe('the published package', () => {
  let pkg: string
  const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: pkg, encoding: 'utf8' }).trim()

  beforeAll(() => {
    pkg = mkdtempSync(join(tmpdir(), 'eas-package-'))
    copyFileSync(join(root, 'package.json'), join(pkg, 'package.json'))
    symlinkSync(join(root, 'views'), join(pkg, 'views'))
    symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'))
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules/typescript/bin/tsc'),
        '-p',
        join(root, 'tsconfig.build.json'),
        '--outDir',
        join(pkg, 'dist'),
      ],
      { stdio: 'pipe' },
    )
  })

  afterAll(() => rmSync(pkg, { recursive: true, force: true }))

  it('works with require()', () => {
    expect(
      node([
        '-e',
        "const { auth } = require('express-auth-service'); console.log(typeof auth, typeof auth({ url: 'http://localhost/api/auth', secret: 'x'.repeat(32) }).getSession)",
      ]),
    ).toBe('function function')
  })

  it('works with import', () => {
    expect(
      node([
        '--input-type=module',
        '-e',
        "import { auth, AuthError } from 'express-auth-service'; console.log(typeof auth, typeof AuthError)",
      ]),
    ).toBe('function function')
  })

  // What an app does not configure costs it no memory (bench/README.md): nodemailer for mail it
  // sends itself, connect-redis and express-session without database sessions in Redis, and the
  // rate-limiter-flexible without Redis (the limits in memory are counters of its own), and
  // @simplewebauthn/server (10 MB with its ASN.1 modules) without a passkey provider, and otpauth
  // and qrcode without a second factor.
  it('loads only the dependencies its options use', () => {
    const loaded = (sending: string) =>
      JSON.parse(
        node([
          '-e',
          `const { auth, email } = require('express-auth-service')
           auth({ url: 'http://localhost/api/auth', secret: 'x'.repeat(32), providers: [email({ from: 'a@example.com', ${sending} })] })
           const names = Object.keys(require.cache).map((file) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\/(.*)$/.exec(file)).filter(Boolean)
           console.log(JSON.stringify([...new Set(names.map(([, name, rest]) => name === 'rate-limiter-flexible' ? name + '/' + rest : name))]))`,
        ]),
      ) as string[]
    const itself = loaded('sendVerificationRequest() {}')
    for (const name of [
      'nodemailer',
      'connect-redis',
      'express-session',
      'ioredis',
      '@simplewebauthn/server',
      'pg',
      'otpauth',
      'qrcode',
    ])
      expect(itself).not.toContain(name)
    expect(itself.filter((name) => name.startsWith('rate-limiter-flexible'))).toEqual([])
    expect(loaded("server: 'smtp://localhost:25'")).toContain('nodemailer')
  })

  // express-auth-service/testing: the store contract suites, for a store's author and any runner.
  it('ships the store contract suites at express-auth-service/testing, with their types', () => {
    expect(
      node(['-e', "const t = require('express-auth-service/testing'); console.log(Object.keys(t).sort().join(' '))"]),
    ).toBe(
      'describeAccountStoreContract describePasskeyStoreContract describeSessionStoreContract describeVerificationStoreContract',
    )
    expect(existsSync(join(pkg, 'dist/lib/testing/index.d.ts'))).toBe(true)
    // Under node:test, as an author who uses neither Jest nor Vitest would: a toy store passes it.
    const report = node([
      '--input-type=module',
      '-e',
      `import { describe, it, beforeEach } from 'node:test'
       import { describeVerificationStoreContract } from 'express-auth-service/testing'
       const toy = () => {
         const records = new Map()
         const live = (r) => r && r.expires > Date.now() / 1000 ? r : null
         return {
           put: async (key, record) => void records.set(key, record),
           take: async (key) => { const r = records.get(key); records.delete(key); return live(r) ?? null },
           remove: async (key) => void records.delete(key),
         }
       }
       describeVerificationStoreContract('a toy store', toy, { describe, it, beforeEach })`,
    ])
    // TAP on Node 20 (# pass 5), the spec reporter on Node 24 (ℹ pass 5), when not on a terminal.
    expect(report).toMatch(/^ *(?:#|ℹ) pass 5$/m)
    expect(report).toMatch(/^ *(?:#|ℹ) fail 0$/m)
  })

  // express-auth-service/resource: what an API needs to accept access tokens, and nothing of auth().
  it('ships requireAccessToken at express-auth-service/resource, with its types, loading nothing of the service', () => {
    expect(
      node(['-e', "const r = require('express-auth-service/resource'); console.log(Object.keys(r).sort().join(' '))"]),
    ).toBe('requireAccessToken')
    expect(
      node([
        '--input-type=module',
        '-e',
        "import { requireAccessToken } from 'express-auth-service/resource'; console.log(typeof requireAccessToken({ issuer: 'http://localhost/api/auth', audience: 'http://localhost/api' }))",
      ]),
    ).toBe('function')
    expect(existsSync(join(pkg, 'dist/lib/resource/index.d.ts'))).toBe(true)
    const loaded = JSON.parse(
      node([
        '-e',
        `require('express-auth-service/resource').requireAccessToken({ issuer: 'http://localhost/api/auth', audience: 'http://localhost/api' })
         console.log(JSON.stringify(Object.keys(require.cache)))`,
      ]),
    ) as string[]
    expect(
      loaded.filter((file) => /dist\/lib\/(?:core|features)\/|dist\/lib\/auth\.js$|node_modules\/passport/.test(file)),
    ).toEqual([])
  })

  it('finds its views from the built files and ships type declarations', () => {
    expect(node(['-e', "require('./dist/lib/infra/pages/render'); console.log('views found')"])).toBe('views found')
    expect(existsSync(join(pkg, 'dist/lib/index.d.ts'))).toBe(true)
  })
})
