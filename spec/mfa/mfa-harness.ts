import { recoveryCodes, totp, type AuthOptions } from '../../lib'
import type { Browser } from '../support/browser'
import { base32Decode, totp as totpCode } from '../support/totp'
import {
  GOOD,
  signUp,
  startPasswordService,
  type PasswordService,
  type PasswordSetup,
} from '../password/password-harness'

export { stopAll, newAddress } from '../password/password-harness'

/** A password service with `mfa` on, and `GET /record`: the app's view of the browser's session (getSessionRecord). */
export interface MfaService extends PasswordService {
  record(browser: Browser): Promise<{
    userId: string
    amr: string[]
    aal: number
    authTime: number
    signedInAt: string
    handle: string | null
  } | null>
}

export async function startMfaService(
  mfa: AuthOptions['mfa'] = { factors: [totp({ issuer: 'Example' }), recoveryCodes()] },
  setup: PasswordSetup = {},
): Promise<MfaService> {
  let service: PasswordService | null = null
  const events: PasswordService['events'] = []
  const record = (name: string) => (message: unknown) => {
    events.push({ name, message: message as Record<string, unknown> })
  }
  service = await startPasswordService({
    ...setup,
    options: {
      ...setup.options,
      mfa,
      events: {
        factorAdded: record('factorAdded'),
        factorRemoved: record('factorRemoved'),
        recoveryCodeUsed: record('recoveryCodeUsed'),
        passwordReset: record('passwordReset'),
        passwordChanged: record('passwordChanged'),
      },
    },
    setup: (app) => {
      setup.setup?.(app)
      app.get('/record', (req, res, next) => {
        service!.router
          .getSessionRecord(req)
          .then((record) => res.json(record))
          .catch(next)
      })
    },
  })
  const served = service
  return {
    ...served,
    events,
    async record(browser) {
      const res = await browser.jar.fetch(`${served.origin}/record`)
      return (await res.json()) as never
    },
  }
}

/** What enrolment gave: the secret (as an app keeps it) and the recovery codes, shown once. */
export interface Enrolled {
  readonly key: Buffer
  readonly uri: URL
  readonly recoveryCodes: string[]
}

/** POST a form body as the built-in pages do, with this browser's CSRF token; `json`: as the NextAuth client does. */
export async function post(
  service: { base: string },
  browser: Browser,
  path: string,
  fields: Record<string, string>,
  json = false,
): Promise<Response> {
  const body = new URLSearchParams({ csrfToken: await browser.csrfToken(), ...fields })
  if (json) body.set('json', 'true')
  return browser.jar.fetch(`${service.base}${path}`, {
    method: 'POST',
    body,
    headers: { accept: json ? 'application/json' : 'text/html' },
  })
}

/** The code an app shows for `key` at `atMs` (now by default). */
export const codeOf = (key: Buffer, atMs = Date.now()) => totpCode(key, Math.floor(atMs / 1000))

/**
 * A new user signed up with a password (the browser signed in), who enrols an authenticator app:
 * setup, then the app's first code.
 */
export async function enrolledUser(service: MfaService, browser: Browser, address: string): Promise<Enrolled> {
  await signUp(service, browser, address, GOOD)
  const setup = await post(service, browser, '/mfa/totp/setup', {}, true)
  expect(setup.status).toBe(200)
  const { uri, secret } = (await setup.json()) as { uri: string; secret: string }
  const key = base32Decode(secret)
  const confirmed = await post(service, browser, '/mfa/totp/confirm', { code: codeOf(key) }, true)
  expect(confirmed.status).toBe(200)
  const { recoveryCodes: codes } = (await confirmed.json()) as { recoveryCodes: string[] }
  return { key, uri: new URL(uri), recoveryCodes: codes }
}
