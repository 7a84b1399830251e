import express from 'express'
import { auth, email, type AuthOptions } from '../../lib'
import { listenOn, testOptions } from './app'
import { Browser } from './browser'
import {
  loadV4Client,
  loadV5Client,
  loseCookie,
  silenceBroadcasts,
  useBrowserFetch,
  type ClientRequest,
  type NextAuthClient,
} from './next-auth-client'
import { freePort } from './process'
import { signInLink, startSmtp } from './smtp'
import {
  FROM,
  confirm,
  confirmForm,
  later,
  newAddress,
  openLink,
  outcome,
  signedInTo,
  type EmailService,
} from './email-harness'

/**
 * The NextAuth clients as a page of the app runs them: one browser (a cookie jar, ../support/browser)
 * whose cookies the client's `fetch` sends, the client loaded for one service, and the user's part
 * of the e-mail sign-in (the mailed link, its confirm page and button). Everything started here is
 * undone by `closePages()` (the global `fetch` and `BroadcastChannel`) and ../flows/email-harness
 * `stopAll()` (services and mail servers).
 */

export type ClientVersion = 'v4' | 'v5'

export interface Page {
  version: ClientVersion
  browser: Browser
  client: NextAuthClient
  /** Every request the client (and the browser) sent, as it left. */
  requests: ClientRequest[]
  /** From now on the browser forgets its CSRF cookie just before each POST (it expired, or was cleared). */
  losesCsrfCookie(): void
}

const CSRF_COOKIE = 'auth.csrf-token'
const undo: Array<() => void> = []

/** Puts back the global `fetch` and `BroadcastChannel` (for afterEach, before `stopAll()`). */
export function closePages(): void {
  undo
    .splice(0)
    .reverse()
    .forEach((restore) => restore())
}

/** A page of the app in a new browser, running the `version` client against `service`. */
export async function openPage(service: EmailService, version: ClientVersion): Promise<Page> {
  const browser = new Browser(service)
  const requests: ClientRequest[] = []
  let losing = false
  undo.push(
    useBrowserFetch(browser.jar, (request) => {
      requests.push(request)
      if (losing && request.method === 'POST') loseCookie(browser.jar, service.origin, CSRF_COOKIE)
    }),
  )
  if (version === 'v5') undo.push(silenceBroadcasts())
  const client = version === 'v4' ? loadV4Client(service.base) : await loadV5Client(service.base)
  const losesCsrfCookie = () => {
    losing = true
  }
  return { version, browser, client, requests, losesCsrfCookie }
}

/** Where to come back to, as each client names it: `callbackUrl` (v4), `redirectTo` (v5). */
export function returnTo(page: Page, url: string): Record<string, string> {
  return page.version === 'v4' ? { callbackUrl: url } : { redirectTo: url }
}

/** The user opens the mailed link in the page's browser and presses the confirm page's button. */
export async function followMailedLink(service: EmailService, page: Page, address: string): Promise<Response> {
  const mail = await service.smtp.nextMessage()
  expect(mail.envelope.to).toEqual([address])
  const link = signInLink(mail, service.base)
  return confirm(service, page.browser, confirmForm(await openLink(service, page.browser, link)).fields)
}

/** The whole e-mail sign-in through the client, back at /welcome: the address signed in. */
export async function signInByEmail(service: EmailService, page: Page): Promise<string> {
  const address = newAddress()
  await page.client.signIn('email', { email: address, redirect: false, ...returnTo(page, '/welcome') })
  expect(outcome(await followMailedLink(service, page, address))).toEqual(signedInTo(`${service.origin}/welcome`))
  return address
}

/**
 * A service with the e-mail provider whose `url` is `http://localhost:<port>{path}`, its router
 * mounted at the app's root (it then serves under that path by itself), and a /welcome page.
 */
export async function startEmailServiceAt(path: string, authOptions: AuthOptions = {}): Promise<EmailService> {
  const smtp = await startSmtp()
  later(() => smtp.close())
  const port = await freePort()
  const origin = `http://localhost:${port}`
  const base = `${origin}${path}`
  const { logs, ...options } = testOptions({
    url: base,
    providers: [email({ from: FROM, server: smtp.url })],
    ...authOptions,
  })
  const router = auth(options)
  const app = express()
  app.use(router)
  app.get('/welcome', (_req, res) => {
    res.send('welcome')
  })
  const server = await listenOn(app, port)
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  later(close)
  return { port, origin, base, logs, router, close, smtp }
}
