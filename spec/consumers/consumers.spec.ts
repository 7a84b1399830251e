import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { SECRET } from '../support/app'
import { OTHER_SECRET } from '../support/session-vectors'
import { commonJsApp, esModuleApp, install, signInByEmail, start, typeScriptApp, typeScriptExpress4App } from './apps'
import { pack, run, type Packed } from './packed'

/**
 * The package as users get it: `npm pack` of a fresh build (./packed), what the tarball holds, and
 * four apps that install it from the tarball and sign a user in over HTTP (./apps).
 */

let packed: Packed

beforeAll(async () => {
  packed = await pack()
}, 300_000)

afterAll(() => packed?.remove())

/** Every file below `dir`, as paths relative to it with forward slashes. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'))
}

const NOTICES = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']

/** Strings the specs, their peers and the demo use as secrets: none may reach a user. */
const TEST_SECRETS = [
  SECRET,
  'a-test-secret-that-is-long-enough',
  OTHER_SECRET,
  'app-secret', // the test identity provider's clients (spec/flows/oauth-harness.ts, spec/fuzz)
  'second-secret',
  'hostile-secret', // spec/support/hostile-issuer.ts
  'test-secret', // spec/support/idp.spec.ts
  'demo-client-secret', // examples/demo/identity-provider.ts
]

describe('what npm pack ships', () => {
  it('the library built from every lib/ module, as JavaScript and declarations', () => {
    const modules = filesBelow(join(packed.source, 'lib'))
      .filter((path) => path.endsWith('.ts'))
      .map((path) => `dist/lib/${path.slice(0, -'.ts'.length)}`)
    expect(modules.length).toBeGreaterThan(50)
    const expected = modules.flatMap((module) => [`${module}.js`, `${module}.d.ts`])
    expect(packed.files.filter((path) => path.startsWith('dist/')).sort()).toEqual(expected.sort())
  })

  it('the views, the docs, package.json, the README, the licence and the changelog', () => {
    const views = filesBelow(join(packed.source, 'views')).map((path) => `views/${path}`)
    const docs = filesBelow(join(packed.source, 'docs')).map((path) => `docs/${path}`)
    expect(views).toContain('views/signin.ejs')
    expect(docs).toContain('docs/options.md')
    expect(packed.files.filter((path) => !path.startsWith('dist/')).sort()).toEqual(
      [...views, ...docs, ...NOTICES].sort(),
    )
  })

  it('nothing for development: no specs, examples, bench, CI, node_modules, source maps, fixtures or .env files', () => {
    // Each of these is in the tree that was packed: spec/, examples/ and dist/examples/, bench/, .ci/
    // and a node_modules link. (The build writes no source maps: they would point at lib/*.ts.)
    const source = filesBelow(packed.source)
    for (const present of ['spec/', 'examples/', 'dist/examples/', 'bench/', '.ci/']) {
      expect(source.some((path) => path.startsWith(present))).toBe(true)
    }
    expect(existsSync(join(packed.source, 'node_modules/express/package.json'))).toBe(true)
    const development =
      /(?:^|\/)(?:spec|examples|bench|\.ci|node_modules|fixtures|coverage|reports)\/|\.map$|\.tsbuildinfo$|(?:^|\/)\.env|(?:^|\/)\.npmrc$/
    expect(packed.files.filter((path) => development.test(path))).toEqual([])
  })

  it('no secret that the specs or the demo use, in any file', async () => {
    const extracted = join(packed.dir, 'extracted')
    mkdirSync(extracted)
    await run('tar', ['-xzf', packed.tarball, '-C', extracted], { cwd: packed.dir })
    const files = filesBelow(join(extracted, 'package'))
    expect(files.sort()).toEqual([...packed.files].sort())
    const found = files.flatMap((path) => {
      const text = readFileSync(join(extracted, 'package', path), 'latin1')
      return TEST_SECRETS.filter((secret) => text.includes(secret)).map((secret) => `${path}: ${secret}`)
    })
    expect(found).toEqual([])
  })

  it('a package.json whose every entry point is in the tarball', () => {
    const manifest = JSON.parse(readFileSync(join(packed.source, 'package.json'), 'utf8'))
    const exported = manifest.exports['.']
    expect(exported).toEqual({
      types: './dist/lib/index.d.ts',
      require: './dist/lib/index.js',
      import: './dist/lib/index.js',
      default: './dist/lib/index.js',
    })
    const named = [
      manifest.main,
      manifest.types,
      ...Object.values<string>(exported),
      manifest.exports['./package.json'],
    ]
    for (const path of named) expect(packed.files).toContain(path.replace(/^\.\//, ''))
    expect({ license: manifest.license, engines: manifest.engines, sideEffects: manifest.sideEffects }).toEqual({
      license: 'MIT',
      engines: { node: '>=20' },
      sideEffects: false,
    })
  })
})

describe('apps that install the tarball', () => {
  const apps = [commonJsApp, esModuleApp, typeScriptApp, typeScriptExpress4App]
  const dirs = new Map(apps.map((app) => [app, '']))
  /** What each app's `npm install` printed on stderr. */
  const warnings = new Map(apps.map((app) => [app, '']))

  beforeAll(async () => {
    await Promise.all(
      apps.map(async (app) => {
        const dir = join(packed.dir, app.name.replace(/\W+/g, '-').toLowerCase())
        mkdirSync(dir)
        dirs.set(app, dir)
        warnings.set(app, await install(app, dir, packed.tarball))
      }),
    )
  }, 240_000)

  // npm warns (EBADENGINE) when a package in the tree asks for a Node the user does not run: the
  // package says Node 20, so every dependency of it must accept Node 20 too.
  it.each(apps)('$name: npm install of the tarball prints no engine warning', (app) => {
    expect(
      warnings
        .get(app)!
        .split('\n')
        .filter((line) => line.includes('EBADENGINE')),
    ).toEqual([])
  })

  it.each(apps)('$name: a user signs in by e-mail, and the app sees the session', async (app) => {
    const running = await start(app, dirs.get(app)!)
    try {
      const address = `user-${randomBytes(5).toString('hex')}@example.com`
      const session = { user: expect.objectContaining({ email: address }), expires: expect.any(String) }
      expect(await signInByEmail(running, address)).toEqual({
        requested: { status: 302, location: `${running.base}/verify-request?provider=email&type=email` },
        confirmPage: { status: 200, formAction: `${running.base}/callback/email` },
        confirmed: { status: 302, location: `${running.origin}/welcome` },
        session,
        me: { session },
      })
    } finally {
      await running.process.stop()
    }
  })

  it('an ES module gets every export by name, the very objects require() gives', async () => {
    const script = [
      `import * as imported from 'express-auth-service'`,
      `import { createRequire } from 'node:module'`,
      `const required = createRequire(import.meta.url)('express-auth-service')`,
      // Node adds the namespace's own names: the CommonJS object as `default` (and, from Node 23,
      // as 'module.exports'), and the `__esModule` marker that TypeScript's output sets.
      `const own = new Set(['default', 'module.exports', '__esModule'])`,
      `const names = Object.keys(imported).filter((name) => !own.has(name))`,
      `console.log(JSON.stringify({`,
      `  imported: names.sort(),`,
      `  required: Object.keys(required).sort(),`,
      `  same: names.every((name) => imported[name] === required[name]),`,
      `  default: imported.default === required,`,
      `}))`,
    ].join('\n')
    const output = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dirs.get(esModuleApp)! })
    const runtime = [
      'AuthError',
      'ConfigurationError',
      'auth',
      'de',
      'email',
      'memoryAccounts',
      'oauth2',
      'oidc',
      'passkey',
      'passportStrategy',
      'password',
      'postgresAccounts',
      'recoveryCodes',
      'redisAccounts',
      'totp',
    ]
    expect(JSON.parse(output)).toEqual({
      imported: [...runtime, 'redisSessionStore'].sort(),
      required: [...runtime, 'redisSessionStore'].sort(),
      same: true,
      default: true,
    })
  })

  it('the exports map: one file for require and import, package.json readable, nothing deeper', async () => {
    const script = [
      `const resolved = require.resolve('express-auth-service')`,
      `const version = require('express-auth-service/package.json').version`,
      `let deep`,
      `try { require.resolve('express-auth-service/dist/lib/infra/pages/render') } catch (error) { deep = error.code }`,
      `console.log(JSON.stringify({ resolved: require('node:path').relative(process.cwd(), resolved), version, deep }))`,
    ].join('\n')
    const output = await run(process.execPath, ['-e', script], { cwd: dirs.get(commonJsApp)! })
    expect(JSON.parse(output)).toEqual({
      resolved: 'node_modules/express-auth-service/dist/lib/index.js',
      version: JSON.parse(readFileSync(join(packed.source, 'package.json'), 'utf8')).version,
      deep: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    })
  })
})
