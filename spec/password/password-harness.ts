import type { Express } from 'express'
import {
  memoryAccounts,
  password,
  type AccountStore,
  type AccountsOptions,
  type AuthOptions,
  type PasswordOptions,
} from '../../lib'
import type { Browser } from '../support/browser'
import { email } from '../../lib'
import { serve } from '../support/app'
import { FROM, later, type EmailOptions, type EmailService } from '../support/email-harness'
import { forms, type Form } from '../support/forms'
import { hrefs, startSmtp, type Mail, type SmtpOptions } from '../support/smtp'

export { stopAll, newAddress } from '../support/email-harness'

/**
 * The password specs' service: `password()` on accounts (memory unless the spec gives a store) and
 * the e-mail provider sending through a real mail server on loopback (../support/smtp), every
 * password and accounts event recorded. The breached-password check is off unless the spec gives
 * `password.breached` (a local range server: ../support/pwned-range): no spec calls the internet.
 */
export interface PasswordService extends EmailService {
  store: AccountStore
  events: Array<{ name: string; message: Record<string, unknown> }>
}

export interface PasswordSetup {
  password?: PasswordOptions
  store?: AccountStore
  accounts?: Omit<AccountsOptions, 'store'>
  email?: Partial<EmailOptions>
  options?: Partial<AuthOptions>
  smtp?: SmtpOptions
  setup?: (app: Express) => void
}

/** A good password nobody would guess: 20 characters, not on any list. */
export const GOOD = 'violet-harbour-tractor-41'

export async function startPasswordService(setup: PasswordSetup = {}): Promise<PasswordService> {
  const store = setup.store ?? memoryAccounts()
  const events: PasswordService['events'] = []
  const record = (name: string) => (message: unknown) => {
    events.push({ name, message: message as Record<string, unknown> })
  }
  const smtp = await startSmtp(setup.smtp ?? {})
  later(() => smtp.close())
  const served = await serve(
    {
      accounts: { store, ...setup.accounts },
      // Many sign-ins from one address in a few seconds: far more than a person makes.
      requestRateLimit: { limit: 100_000 },
      events: {
        userCreated: record('userCreated'),
        accountLinked: record('accountLinked'),
        passwordChanged: record('passwordChanged'),
        passwordReset: record('passwordReset'),
      },
      ...setup.options,
      providers: [
        email({
          from: FROM,
          server: smtp.url,
          // A spec sends several mails to one address within a minute.
          rateLimits: { addressPerMinute: 100, addressPerHour: 100, ipPerHour: 10_000 },
          ...setup.email,
        }),
        password({ breached: false, ...setup.password }),
      ],
    },
    setup.setup ? { setup: setup.setup } : {},
  )
  later(() => served.close())
  return { ...served, smtp, store, events }
}

/**
 * POST /callback/credentials as NextAuth's v4 client does (`json=true`), or v5 (`X-Auth-Return-Redirect: 1`),
 * or the built-in page's form (a 302).
 */
export async function passwordSignIn(
  service: { base: string },
  browser: Browser,
  identifier: string,
  secret: string,
  options: { client?: 'v4' | 'v5' | 'form'; field?: string; callbackUrl?: string; csrfToken?: string } = {},
): Promise<Response> {
  const client = options.client ?? 'v4'
  const body = new URLSearchParams({
    [options.field ?? 'email']: identifier,
    password: secret,
    csrfToken: options.csrfToken ?? (await browser.csrfToken()),
    callbackUrl: options.callbackUrl ?? '/welcome',
  })
  if (client === 'v4') body.set('json', 'true')
  const headers: Record<string, string> = client === 'v5' ? { 'x-auth-return-redirect': '1' } : {}
  return browser.jar.fetch(`${service.base}/callback/credentials`, { method: 'POST', body, headers })
}

/** The user of this browser's session, from GET /session; null when there is none. */
export async function sessionUser(
  service: { base: string },
  browser: Browser,
): Promise<{ email?: string | null } | null> {
  const body = (await (await browser.jar.fetch(`${service.base}/session`)).json()) as {
    user?: { email?: string | null }
  }
  return body.user ?? null
}

/** The one link of a mail under `{base}{path}?`, in its text and its HTML. */
export function linkIn(mail: Pick<Mail, 'text' | 'html'>, base: string, path: string): URL {
  const prefix = `${base}${path}?`
  const found = [...new Set((mail.text.match(/https?:\/\/\S+/g) ?? []).filter((url) => url.startsWith(prefix)))]
  if (found.length !== 1) throw new Error(`expected one ${path} link in the mail; found ${found.length}:\n${mail.text}`)
  expect(hrefs(mail.html)).toContain(found[0])
  return new URL(found[0]!)
}

/** A page's form posting to `{base}{path}`; fails the spec when it has none. */
export function formTo(html: string, base: string, path: string): Form {
  const form = forms(html).find((f) => f.method === 'post' && new URL(f.action, base).href === `${base}${path}`)
  if (!form) throw new Error(`no form posting to ${path}:\n${html}`)
  return form
}

/** POSTs a form's fields (with changes) as the browser would. */
export function submit(
  browser: Browser,
  base: string,
  path: string,
  fields: Record<string, string>,
): Promise<Response> {
  return browser.jar.fetch(`${base}${path}`, { method: 'POST', body: new URLSearchParams(fields) })
}

/**
 * Signs up `address` with `secret` the whole way: the sign-up form, the mail, the link's confirm
 * page and its button. The browser is then signed in; returns the confirm button's answer.
 */
export async function signUp(
  service: PasswordService,
  browser: Browser,
  address: string,
  secret: string,
): Promise<Response> {
  const res = await submit(browser, service.base, '/password/signup', {
    email: address,
    password: secret,
    csrfToken: await browser.csrfToken(),
    callbackUrl: '/welcome',
  })
  expect({ status: res.status, location: res.headers.get('location') }).toEqual({
    status: 302,
    location: `${service.base}/password/sent?kind=signup`,
  })
  const mail = await service.smtp.nextMessage()
  expect(mail.envelope.to).toEqual([address])
  return confirmLink(service, browser, linkIn(mail, service.base, '/password/confirm'), secret)
}

/** Opens a sign-up link (a top-level GET from the webmail) and presses the confirm page's button. */
export async function confirmLink(
  service: { base: string },
  browser: Browser,
  link: URL,
  secret: string = GOOD,
): Promise<Response> {
  const page = await browser.jar.fetch(link, {}, { crossSite: true })
  expect(page.status).toBe(200)
  const form = formTo(await page.text(), service.base, '/password/confirm')
  return submit(browser, service.base, '/password/confirm', { ...form.fields, password: secret })
}

export { later }

/** bcrypt as an older system made its hashes (bcryptjs: `$2a$`), for accounts imported from it. */
export function bcryptHash(secret: string, cost: number): Promise<string> {
  return (require('bcryptjs') as { hash(password: string, cost: number): Promise<string> }).hash(secret, cost)
}

/**
 * A user with a password account whose hash came from another system (docs/password-import.md),
 * written straight to the store as the import's SQL would: its user id.
 */
export async function importedAccount(store: AccountStore, address: string, hash: string): Promise<string> {
  const now = new Date()
  const userId = `imported-${process.pid}-${Math.random().toString(36).slice(2)}`
  const created = await store.createUser(
    { id: userId, name: null, email: address, emailVerified: now, image: null, createdAt: now },
    {
      id: `${userId}-account`,
      userId,
      provider: 'credentials',
      issuer: '',
      subject: address,
      type: 'credentials',
      label: address,
      linkedAt: now,
      lastUsedAt: null,
      passwordHash: hash,
    },
  )
  if (created.kind !== 'created') throw new Error(`the import answered ${created.kind}`)
  return userId
}
