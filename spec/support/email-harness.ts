import { randomBytes } from 'node:crypto'
import type { Express } from 'express'
import { email, type AuthOptions } from '../../lib'
import { serve, type Served } from './app'
import type { Browser } from './browser'
import { splitSetCookie } from './cookie-jar'
import { forms, type Form } from './forms'
import { signInLink, startSmtp, type SmtpOptions, type SmtpServer } from './smtp'

/**
 * E-mail sign-in over the wire: the service on `localhost`, sending through nodemailer over SMTP to
 * a mail server on 127.0.0.1 (../support/smtp), and a browser (../support/browser) that asks for
 * a link, opens it from its mailbox and presses the confirm page's button. Each service is fresh:
 * its rate limits, its logs and its mail server belong to one spec.
 */

export type EmailOptions = Parameters<typeof email>[0]

export const FROM = 'auth@example.com'

export interface EmailService extends Served {
  smtp: SmtpServer
}

const running: Array<() => Promise<void>> = []

/** Stops every service and mail server started since the last call (for afterEach). */
export async function stopAll(): Promise<void> {
  await Promise.all(running.splice(0).map((stop) => stop()))
}

/** Runs `stop` at the next `stopAll()`. */
export function later(stop: () => Promise<void>): void {
  running.push(stop)
}

/** A service with the e-mail provider (`email` options over `{ from, server: <its mail server> }`). */
export async function startEmailService(
  options: Partial<EmailOptions> = {},
  authOptions: AuthOptions = {},
  smtpOptions: SmtpOptions = {},
  setup?: (app: Express) => void,
): Promise<EmailService> {
  const smtp = await startSmtp(smtpOptions)
  later(() => smtp.close())
  const served = await serve(
    { providers: [email({ from: FROM, server: smtp.url, ...options })], ...authOptions },
    setup ? { setup } : {},
  )
  later(() => served.close())
  return { ...served, smtp }
}

/** A mailbox nobody else uses, with a local part that cannot turn up in a log by chance. */
export function newAddress(domain = 'example.com'): string {
  return `user-${randomBytes(5).toString('hex')}@${domain}`
}

export function localPart(address: string): string {
  return address.slice(0, address.indexOf('@'))
}

/**
 * POST /signin/email as the sign-in page's form does (a JSON body with `jsonBody`; JSON mode,
 * `json=true`, with `json`).
 */
export async function requestLink(
  service: Served,
  browser: Browser,
  address: unknown,
  options: { callbackUrl?: string; json?: boolean; jsonBody?: boolean; csrfToken?: string } = {},
): Promise<Response> {
  const fields: Record<string, unknown> = {
    email: address,
    csrfToken: options.csrfToken ?? (await browser.csrfToken()),
    callbackUrl: options.callbackUrl ?? '/welcome',
  }
  if (options.json) fields.json = options.jsonBody ? true : 'true'
  const url = `${service.base}/signin/email`
  if (options.jsonBody) {
    const headers = { 'content-type': 'application/json' }
    return browser.jar.fetch(url, { method: 'POST', headers, body: JSON.stringify(fields) })
  }
  return browser.jar.fetch(url, { method: 'POST', body: new URLSearchParams(fields as Record<string, string>) })
}

export function verifyRequestUrl(service: Served): string {
  return `${service.base}/verify-request?provider=email&type=email`
}

export function errorUrl(service: Served, code: string): string {
  return `${service.base}/error?error=${code}`
}

/** Asks for a link for `address`, checks the answer and the mail, and returns the link. */
export async function mailedLink(
  service: EmailService,
  browser: Browser,
  address: string,
  options: { callbackUrl?: string } = {},
): Promise<URL> {
  const res = await requestLink(service, browser, address, options)
  expect({ status: res.status, location: res.headers.get('location') }).toEqual({
    status: 302,
    location: verifyRequestUrl(service),
  })
  const mail = await service.smtp.nextMessage()
  expect(mail.envelope.to).toEqual([address])
  return signInLink(mail, service.base)
}

export interface LinkPage {
  res: Response
  html: string
  /** The form posting to `{base}/callback/email`, when the page has one. */
  form: Form | undefined
}

/** The browser opens the link from a mail: a top-level GET coming from another site (a webmail). */
export async function openLink(service: Served, browser: Browser, link: URL | string): Promise<LinkPage> {
  const res = await browser.jar.fetch(link, {}, { crossSite: true })
  const html = await res.text()
  const form = forms(html).find(
    (candidate) =>
      candidate.method === 'post' && new URL(candidate.action, link).href === `${service.base}/callback/email`,
  )
  return { res, html, form }
}

/** The confirm page's form; fails the spec when the page has none. */
export function confirmForm(page: LinkPage): Form {
  if (!page.form) throw new Error(`no form posting to /callback/email on the ${page.res.status} page:\n${page.html}`)
  return page.form
}

/** The confirm page's button: POST /callback/email from the service's own page. */
export function confirm(service: Served, browser: Browser, fields: Record<string, string>): Promise<Response> {
  return browser.jar.fetch(`${service.base}/callback/email`, { method: 'POST', body: new URLSearchParams(fields) })
}

/** Opens the link and presses the button: the answer to the POST. */
export async function useLink(service: Served, browser: Browser, link: URL | string): Promise<Response> {
  return confirm(service, browser, confirmForm(await openLink(service, browser, link)).fields)
}

/** The answer sets a session cookie (a live one, not a deletion). */
export function setsSession(res: Response): boolean {
  return res.headers
    .getSetCookie()
    .map((line) => splitSetCookie(line))
    .some(
      (cookie) =>
        cookie?.name === 'auth.session-token' &&
        cookie.value !== '' &&
        !cookie.attributes.some(([name, value]) => name === 'max-age' && value === '0'),
    )
}

/** What the user sees of an answer: where it sends the browser and whether it signed them in. */
export function outcome(res: Response): { status: number; location: string | null; session: boolean } {
  return { status: res.status, location: res.headers.get('location'), session: setsSession(res) }
}

export function signedInTo(location: string) {
  return { status: 302, location, session: true }
}

export function refused(service: Served, code = 'Verification') {
  return { status: 302, location: errorUrl(service, code), session: false }
}

/** The link with some of its query parameters changed. */
export function withParams(link: URL, params: Record<string, string | null>): URL {
  const changed = new URL(link)
  for (const [name, value] of Object.entries(params)) {
    if (value === null) changed.searchParams.delete(name)
    else changed.searchParams.set(name, value)
  }
  return changed
}
