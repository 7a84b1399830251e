import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Browser } from '../support/browser'
import { forms } from '../support/forms'
import { freePort, startProcess, type Started } from '../support/process'
import { root, run, runCapturing } from './packed'

/**
 * Three apps as users write them, each in a folder of its own that installs the packed tarball and
 * Express 5 from the npm registry: CommonJS (`require`), an ES module (`import`, named exports
 * through the exports map), and TypeScript compiled with `strict` against the package's own
 * declarations. Each mounts the service with e-mail sign-in, prints the link instead of mailing
 * it, and has a page of its own, `/me`, that answers `router.getSession(req)`.
 */

export interface ConsumerApp {
  name: string
  /** The app's files, by path in its folder (package.json is written for it). */
  files: Record<string, string>
  /** What `npm install` is given besides the tarball and Express. */
  devDependencies: string[]
  /** The Express it installs: `express@5` unless said otherwise. */
  express?: string
  /** Run in the app's folder after the install (TypeScript: the compiler). */
  build?: (dir: string) => Promise<void>
  /** The file `node` runs. */
  entry: string
  /** package.json's `type`. */
  type: 'commonjs' | 'module'
}

const FROM = 'auth@example.com'

/** The app after its imports: valid JavaScript and strict TypeScript alike. */
const BODY = `
const port = Number(process.env.PORT)

const router = auth({
  url: \`http://localhost:\${port}/api/auth\`,
  secret: process.env.AUTH_SECRET,
  providers: [
    email({
      from: '${FROM}',
      sendVerificationRequest: ({ identifier, url }) => {
        console.log(\`sign-in link for \${identifier}: \${url}\`)
      },
    }),
  ],
  // The features' events and log codes reach the public types (declaration merging): a strict
  // TypeScript app that names them compiles only if the declarations carry every feature's.
  events: {
    passkeyAdded: ({ passkeyId }) => console.log(\`passkey \${passkeyId} added\`),
    backchannelLogout: ({ provider }) => console.log(\`logout by \${provider}\`),
    tokenRefreshed: ({ provider }) => console.log(\`tokens of \${provider} refreshed\`),
    accountLinked: ({ account }) => console.log(\`\${account.provider} linked\`),
  },
  logger: (entry) => {
    if (
      entry.event === 'passkey.added' ||
      entry.event === 'backchannel_logout' ||
      entry.event === 'tokens.refreshed' ||
      entry.event === 'account.linked'
    )
      console.log(entry.message)
  },
})

const app = express()
app.use('/api/auth', router)
app.get('/me', async (req, res) => {
  res.json({ session: await router.getSession(req) })
})
app.listen(port, '127.0.0.1', () => {
  console.log(\`listening on http://localhost:\${port}\`)
})
`

export const commonJsApp: ConsumerApp = {
  name: 'CommonJS',
  type: 'commonjs',
  files: {
    'server.js': `const express = require('express')\nconst { auth, email } = require('express-auth-service')\n${BODY}`,
  },
  devDependencies: [],
  entry: 'server.js',
}

export const esModuleApp: ConsumerApp = {
  name: 'ES module',
  type: 'module',
  files: {
    'server.js': `import express from 'express'\nimport { auth, email } from 'express-auth-service'\n${BODY}`,
  },
  devDependencies: [],
  entry: 'server.js',
}

export const typeScriptApp: ConsumerApp = {
  name: 'TypeScript',
  type: 'commonjs',
  files: {
    'src/server.ts': [
      `import express from 'express'`,
      `import { auth, email, type AuthRouter, type Session } from 'express-auth-service'`,
      BODY.replace('const router = auth(', 'const router: AuthRouter = auth(').replace(
        'res.json({ session: await router.getSession(req) })',
        'const session: Session | null = await router.getSession(req)\n  res.json({ session })',
      ),
    ].join('\n'),
    // Type-checked only: the docs' Redis snippet with the newest ioredis (6), whose `Redis<"legacy">`
    // once failed to assign to the `redis` option (the package's own ioredis 5 types were nested).
    'src/redis.ts': [
      `import { Redis } from 'ioredis'`,
      `import type { AuthOptions } from 'express-auth-service'`,
      `const redis = new Redis(process.env.REDIS_URL ?? 'redis://localhost:6379', { lazyConnect: true })`,
      `redis.on('error', (error) => console.error('Redis:', error.message))`,
      `export const options: AuthOptions = { redis }`,
    ].join('\n'),
    // Type-checked only: what requireAuth() leaves in res.locals, typed through Express's own
    // \`Locals\` (no annotation on the handler), so a field that is not there does not compile.
    'src/locals.ts': [
      `import express from 'express'`,
      `import type { AuthRouter, SessionUser } from 'express-auth-service'`,
      `export function privateRoutes(router: AuthRouter): express.Router {`,
      `  const routes = express.Router()`,
      `  routes.get('/private', router.requireAuth(), (_req, res) => {`,
      `    const user: SessionUser | undefined = res.locals.session?.user`,
      `    const userId: string | undefined = res.locals.sessionRecord?.userId`,
      `    // After requireAuth() on the same route both are set (SignedInLocals): no \`?.\` needed.`,
      `    const signedIn: { userId: string; expires: string } = {`,
      `      userId: res.locals.sessionRecord.userId,`,
      `      expires: res.locals.session.expires,`,
      `    }`,
      `    void signedIn`,
      `    // @ts-expect-error: the session's user has no such field`,
      `    void res.locals.session?.user?.nope`,
      `    // @ts-expect-error: the record has no such field`,
      `    void res.locals.sessionRecord?.nope`,
      `    res.json({ user, userId })`,
      `  })`,
      `  routes.post('/devices/:handle/revoke', router.requireAuth(), express.urlencoded({ extended: false }), (req, res) => {`,
      `    const token: unknown = req.body.csrfToken`,
      `    res.json({ userId: res.locals.sessionRecord.userId, handle: String(req.params.handle), token })`,
      `  })`,
      `  // requireAuth() stays a plain RequestHandler: stored, called from a handler of the app's own.`,
      `  const guard: express.RequestHandler = router.requireAuth({ unauthenticated: 'status' })`,
      `  routes.get('/wrapped', (req, res, next) => guard(req, res, next), (_req, res) => {`,
      `    res.json({ userId: res.locals.sessionRecord?.userId })`,
      `  })`,
      `  routes.get('/open', (_req, res) => {`,
      `    // @ts-expect-error: no requireAuth() on this route: the record is possibly undefined`,
      `    res.json({ userId: res.locals.sessionRecord.userId })`,
      `  })`,
      `  return routes`,
      `}`,
    ].join('\n'),
    // Type-checked only: an API's side (express-auth-service/resource), its locals typed by the claims.
    'src/resource.ts': [
      `import express from 'express'`,
      `import { requireAccessToken, type AccessTokenClaims, type AccessTokenLocals } from 'express-auth-service/resource'`,
      `export function api(): express.Express {`,
      `  const app = express()`,
      `  const requireToken = requireAccessToken({ issuer: 'http://localhost:3000/api/auth', audience: 'http://localhost:4000' })`,
      `  app.get('/orders', requireToken, (_req, res: express.Response<unknown, AccessTokenLocals>) => {`,
      `    const claims: AccessTokenClaims = res.locals.accessToken`,
      `    // @ts-expect-error: the user's id is a string`,
      `    const wrong: number = claims.sub`,
      `    void wrong`,
      `    res.json({ userId: claims.sub, scope: claims.scope })`,
      `  })`,
      `  return app`,
      `}`,
    ].join('\n'),
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        strict: true,
        noUncheckedIndexedAccess: true,
        // The package's declarations are checked as the app's own code is.
        skipLibCheck: false,
        target: 'ES2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        types: ['node'],
        rootDir: 'src',
        outDir: 'out',
      },
      include: ['src'],
    }),
  },
  // @types/express only, as a user installs it (it brings the newest @types/node): the package's own
  // types need nothing more (its passport types come with it as a dependency).
  devDependencies: ['@types/express@5', 'ioredis@6'],
  build: async (dir) => {
    await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir })
  },
  entry: 'out/server.js',
}

/**
 * The same TypeScript app on Express 4 and its typings (`@types/express@4`): the package's
 * declarations, and its typing of `res.locals`, hold there too.
 */
export const typeScriptExpress4App: ConsumerApp = {
  ...typeScriptApp,
  name: 'TypeScript on Express 4',
  express: 'express@4',
  devDependencies: ['@types/express@4', 'ioredis@6'],
}

/**
 * Writes the app into `dir` and installs it (tarball, Express, its devDependencies), then builds it.
 * Gives what `npm install` printed on stderr (its warnings: EBADENGINE, deprecations).
 */
export async function install(app: ConsumerApp, dir: string, tarball: string): Promise<string> {
  for (const [path, text] of Object.entries(app.files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: app.type }))
  const { stderr } = await runCapturing(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      tarball,
      app.express ?? 'express@5',
      ...app.devDependencies,
    ],
    { cwd: dir },
  )
  await app.build?.(dir)
  return stderr
}

export interface Running {
  origin: string
  base: string
  process: Started
}

/** Starts the installed app with `node` (this process's: the Node under test) on a free port. */
export async function start(app: ConsumerApp, dir: string): Promise<Running> {
  const port = await freePort()
  const origin = `http://localhost:${port}`
  const started = await startProcess(process.execPath, [app.entry], {
    cwd: dir,
    env: { PORT: String(port), AUTH_SECRET: randomBytes(32).toString('base64url') },
    ready: /listening on http:/,
    timeoutMs: 20_000,
  })
  return { origin, base: `${origin}/api/auth`, process: started }
}

/** The link the app printed for `address`, once it has. */
export async function printedLink(running: Running, address: string): Promise<URL> {
  const prefix = `sign-in link for ${address}: `
  for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
    const line = running.process
      .output()
      .split('\n')
      .find((candidate) => candidate.startsWith(prefix))
    if (line !== undefined) return new URL(line.slice(prefix.length).trim())
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`no link for ${address} within 10 s:\n${running.process.output()}`)
}

export interface SignedIn {
  requested: { status: number; location: string | null }
  confirmPage: { status: number; formAction: string | undefined }
  confirmed: { status: number; location: string | null }
  session: unknown
  me: unknown
}

/**
 * A user signs in by e-mail as a browser would: the CSRF cookie and token (GET /csrf), the sign-in
 * form (POST /signin/email), the link opened from the mail (a cross-site GET), the confirm page's
 * button (POST /callback/email); then GET /session and the app's own /me. Every answer on the
 * way, for the spec to compare.
 */
export async function signInByEmail(running: Running, address: string): Promise<SignedIn> {
  const { base, origin } = running
  const browser = new Browser({ base, origin })
  const fields = { email: address, csrfToken: await browser.csrfToken(), callbackUrl: '/welcome' }
  const requested = await browser.jar.fetch(`${base}/signin/email`, {
    method: 'POST',
    body: new URLSearchParams(fields),
  })
  const link = await printedLink(running, address)
  const page = await browser.jar.fetch(link, {}, { crossSite: true })
  const form = forms(await page.text()).find((candidate) => candidate.method === 'post')
  const confirmed = form
    ? await browser.jar.fetch(new URL(form.action, link), { method: 'POST', body: new URLSearchParams(form.fields) })
    : undefined
  return {
    requested: { status: requested.status, location: requested.headers.get('location') },
    confirmPage: { status: page.status, formAction: form && new URL(form.action, link).href },
    confirmed: { status: confirmed?.status ?? 0, location: confirmed?.headers.get('location') ?? null },
    session: await browser.session(),
    me: await (await browser.jar.fetch(`${origin}/me`)).json(),
  }
}
