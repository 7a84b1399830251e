import { email, passkey, type AuthOptions } from '../../lib'
import type { PasskeyOptions } from '../../lib/features/passkey/factory'
import { serve, type Served } from './app'
import { Browser } from './browser'
import { requestLink, useLink } from './email-harness'
import { SoftAuthenticator, type Bend } from './soft-authenticator'

/**
 * The service with `passkey()` (and `email()`, the way a user first signs in before adding a
 * passkey), and the steps of NextAuth v5's passkey client over HTTP: the options request, the
 * authenticator's answer (./soft-authenticator), the POST to the callback.
 */
export interface PasskeyService extends Served {
  /** The e-mail links the service sent, newest last. */
  links: string[]
}

/** `overrides.providers`: more providers after those two (a `password()`, say). */
export async function startPasskeyService(
  options: PasskeyOptions = {},
  overrides: AuthOptions = {},
  site?: Parameters<typeof serve>[1],
): Promise<PasskeyService> {
  const links: string[] = []
  const { providers: more = [], ...rest } = overrides
  const service = await serve(
    {
      providers: [
        email({
          from: 'auth@example.com',
          sendVerificationRequest: ({ url }) => void links.push(url),
          rateLimits: { addressPerMinute: 100, addressPerHour: 100, ipPerHour: 1000 },
        }),
        passkey(options),
        ...more,
      ],
      requestRateLimit: { limit: 10_000 },
      ...rest,
    },
    site,
  )
  return Object.assign(service, { links })
}

/** Signs `browser` in with an e-mail link to `address`. */
export async function signInByEmail(service: PasskeyService, browser: Browser, address: string): Promise<void> {
  const asked = await requestLink(service, browser, address)
  if (asked.status !== 302) throw new Error(`the link request answered ${asked.status}`)
  const signedIn = await useLink(service, browser, service.links.at(-1)!)
  if (signedIn.status !== 302 || !signedIn.headers.get('location')?.endsWith('/welcome'))
    throw new Error(`the link answered ${signedIn.status} ${signedIn.headers.get('location')}`)
}

/** The WebAuthn options as JSON, the parts a spec reads. */
export interface OptionsJson {
  challenge: string
  rpId?: string
  user: { id: string; name: string }
  userVerification?: string
  authenticatorSelection?: Record<string, unknown>
}

export interface OptionsAnswer {
  status: number
  body: { action?: string; options?: OptionsJson; error?: string }
}

/** GET /webauthn-options/passkey as the client asks it (`action=register` to add a passkey). */
export async function askOptions(
  service: Served,
  browser: Browser,
  query: Record<string, string> = {},
): Promise<OptionsAnswer> {
  const res = await browser.jar.fetch(
    `${service.base}/webauthn-options/passkey?${new URLSearchParams(query).toString()}`,
  )
  return { status: res.status, body: (await res.json()) as OptionsAnswer['body'] }
}

/** POST /callback/passkey as the client posts it: a form, `X-Auth-Return-Redirect: 1`, answered with `{url}`. */
export async function postAnswer(
  service: Served,
  browser: Browser,
  action: string,
  data: unknown,
  fields: Record<string, string> = {},
): Promise<{ status: number; url: string | undefined; session: boolean; res: Response }> {
  const body = new URLSearchParams({
    action,
    data: typeof data === 'string' ? data : JSON.stringify(data),
    csrfToken: await browser.csrfToken(),
    callbackUrl: `${service.origin}/welcome`,
    ...fields,
  })
  const res = await browser.jar.fetch(`${service.base}/callback/passkey`, {
    method: 'POST',
    headers: { 'X-Auth-Return-Redirect': '1' },
    body,
  })
  const text = await res.text()
  const url = text.startsWith('{') ? (JSON.parse(text) as { url?: string }).url : undefined
  const session = res.headers.getSetCookie().some((line) => /^auth\.session-token=[^;]/.test(line))
  return { status: res.status, url, session, res }
}

/** Adds a passkey for the signed-in `browser`: the authenticator's new credential. */
export async function registerPasskey(
  service: Served,
  browser: Browser,
  authenticator: SoftAuthenticator,
  bend: Bend = {},
): Promise<Awaited<ReturnType<typeof postAnswer>>> {
  const asked = await askOptions(service, browser, { action: 'register' })
  if (asked.status !== 200) throw new Error(`options answered ${asked.status} ${JSON.stringify(asked.body)}`)
  return postAnswer(service, browser, 'register', authenticator.create(asked.body.options as never, bend))
}

/** Signs in with the authenticator's passkey (a discoverable credential, no user named). */
export async function passkeySignIn(
  service: Served,
  browser: Browser,
  authenticator: SoftAuthenticator,
  bend: Bend = {},
): Promise<Awaited<ReturnType<typeof postAnswer>>> {
  const asked = await askOptions(service, browser)
  return postAnswer(service, browser, 'authenticate', authenticator.get(asked.body.options as never, bend))
}

export function welcome(service: Served): string {
  return `${service.origin}/welcome`
}

export function signInError(service: Served): string {
  return `${service.base}/error?error=CredentialsSignin`
}
