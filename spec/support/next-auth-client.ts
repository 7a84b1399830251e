import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import type { CookieJar } from './cookie-jar'

/**
 * The real NextAuth.js client libraries, unchanged, in Node: `next-auth/react` of next-auth 4 (the
 * package `next-auth`) and of next-auth 5 (the alias `next-auth-v5`). Both read their base URL from
 * `NEXTAUTH_URL` once, when the module loads, and call the global `fetch`; so each client is loaded
 * fresh for one service, and a browser's cookies are given to it by replacing `fetch` for the spec
 * (`useBrowserFetch`). Only the functions a page calls outside React are typed here.
 */

export interface ClientProvider {
  id: string
  name: string
  type: string
  signinUrl: string
  callbackUrl: string
}

/** What `signIn(…, { redirect: false })` answers (v5 adds `code`, and leaves `error` undefined rather than null). */
export interface ClientSignInResult {
  error: string | null | undefined
  code?: string
  status: number
  ok: boolean
  url: string | null
}

export interface NextAuthClient {
  getCsrfToken(): Promise<string | undefined>
  getProviders(): Promise<Record<string, ClientProvider> | null>
  getSession(params?: { broadcast?: boolean }): Promise<unknown>
  signIn(provider: string, options: Record<string, unknown>): Promise<ClientSignInResult | undefined>
  signOut(options: Record<string, unknown>): Promise<{ url: string } | undefined>
}

/** next-auth 4's `next-auth/react` (CommonJS), loaded fresh with `NEXTAUTH_URL` = `base`. */
export function loadV4Client(base: string): NextAuthClient {
  return withNextAuthUrl(base, () => {
    let client: NextAuthClient | undefined
    jest.isolateModules(() => {
      client = require('next-auth/react') as NextAuthClient
    })
    return client!
  })
}

/**
 * next-auth 5's `next-auth/react`, loaded fresh with `NEXTAUTH_URL` = `base`. The package is ESM
 * only, which Jest on Node 20 cannot load: it is bundled to CommonJS (esbuild) and required from a
 * temporary file. React stays outside the bundle, required by absolute path, so that the client
 * shares the one React the specs have.
 */
export async function loadV5Client(base: string): Promise<NextAuthClient> {
  const code = await bundleV5()
  const dir = mkdtempSync(join(tmpdir(), 'next-auth-v5-'))
  try {
    const file = join(dir, 'react.js')
    writeFileSync(file, code)
    return withNextAuthUrl(base, () => {
      let client: NextAuthClient | undefined
      jest.isolateModules(() => {
        client = require(file) as NextAuthClient
      })
      return client!
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function bundleV5(): Promise<string> {
  const result = await build({
    entryPoints: [require.resolve('next-auth-v5/react')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
    plugins: [
      {
        name: 'react-by-absolute-path',
        setup(plugin) {
          plugin.onResolve({ filter: /^react(?:\/jsx-runtime)?$/ }, (args) => ({
            path: require.resolve(args.path),
            external: true,
          }))
        },
      },
    ],
  })
  return result.outputFiles[0]!.text
}

function withNextAuthUrl<T>(base: string, load: () => T): T {
  const before = process.env.NEXTAUTH_URL
  process.env.NEXTAUTH_URL = base
  try {
    return load()
  } finally {
    if (before === undefined) delete process.env.NEXTAUTH_URL
    else process.env.NEXTAUTH_URL = before
  }
}

/** One request the client made, as `useBrowserFetch` saw it before sending it. */
export interface ClientRequest {
  url: URL
  method: string
  headers: Headers
  body: string
}

/**
 * Makes the global `fetch` a browser's: it sends `jar`'s cookies and keeps the ones it is given, as
 * a page calling its own API does. `beforeRequest` sees each request before it leaves (the spec can
 * lose a cookie there). Returns the function that puts the real `fetch` back.
 *
 * Redirects are not followed: the contract answers the client with JSON, and a redirect followed
 * here would lose its cookies, so it is better seen as the failure it is. `CookieJar.fetch` calls
 * the global `fetch` too, so the jar sees those answers twice: storing a cookie twice changes
 * nothing.
 */
export function useBrowserFetch(jar: CookieJar, beforeRequest?: (request: ClientRequest) => void): () => void {
  const real = globalThis.fetch
  const browserFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input)
    const headers = new Headers(init.headers)
    const method = (init.method ?? 'GET').toUpperCase()
    beforeRequest?.({ url, method, headers, body: bodyText(init.body) })
    const cookie = jar.header(url, { method })
    if (cookie !== undefined && !headers.has('cookie')) headers.set('cookie', cookie)
    const response = await real(url, { ...init, headers, redirect: 'manual' })
    jar.store(url, response)
    return response
  }
  globalThis.fetch = browserFetch
  return () => {
    globalThis.fetch = real
  }
}

/** The clients send their forms as URLSearchParams; other kinds of body are not read. */
function bodyText(body: RequestInit['body']): string {
  if (typeof body === 'string') return body
  return body instanceof URLSearchParams ? body.toString() : ''
}

/** Forgets the cookie `name` of `origin`, as a browser does when it expires or the user clears it. */
export function loseCookie(jar: CookieJar, origin: string, name: string): void {
  jar.set(origin, `${name}=; Max-Age=0; Path=/`)
  expect(jar.get(new URL(origin), name)).toBeUndefined()
}

/**
 * Replaces the global `BroadcastChannel` with one that goes nowhere, and returns the function that
 * puts the real one back. The v5 client opens a channel on every `getSession()` and on `signOut()`
 * and never closes them; a real channel keeps Node's event loop alive, and Jest would not exit. The
 * channel only tells the browser's other tabs to read the session again: nothing the service sees.
 */
export function silenceBroadcasts(): () => void {
  const real = globalThis.BroadcastChannel
  class SilentChannel extends EventTarget {
    onmessage = null
    onmessageerror = null
    constructor(readonly name: string) {
      super()
    }
    postMessage(): void {}
    close(): void {}
    ref(): this {
      return this
    }
    unref(): this {
      return this
    }
  }
  globalThis.BroadcastChannel = SilentChannel as unknown as typeof BroadcastChannel
  return () => {
    globalThis.BroadcastChannel = real
  }
}
