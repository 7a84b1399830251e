import { ConfigurationError } from '../errors'
import type { CookieOverride, CookieOverrides } from './types'
import { checkKeys, optionalObject } from '../util/options'

/** A cookie's name and its attribute string, computed once so that responses only concatenate. */
export interface CookieDef {
  readonly name: string
  /** `; Path=/; HttpOnly; SameSite=Lax[; Domain=…][; Secure]` */
  readonly attrs: string
}

export interface CookieSet {
  readonly sessionToken: CookieDef
  readonly csrfToken: CookieDef
  /** Its name is a prefix: one flow cookie is `<name>.<flow id>`. */
  readonly flow: CookieDef
  /** A passkey ceremony in progress: a random id whose keyed hash names its challenge on the server. */
  readonly webauthnChallenge: CookieDef
  /** Accounts: a link the user asked for (`link=true`), or an identity waiting for the user to confirm it by signing in; sealed, 15 minutes at most. */
  readonly accountLink: CookieDef
  /** Passwords: this browser signed in to an account with its password before (its own throttle count then), sealed. */
  readonly knownDevice: CookieDef
  /** A second factor: a sign-in whose first factor passed, waiting for the second; sealed, 5 minutes at most. */
  readonly mfaPending: CookieDef
  /** Step-up: the user who must sign in again (`/signin?reauth=1`); sealed, 15 minutes at most. */
  readonly reauth: CookieDef
}

type CookieKind = keyof CookieSet

const BASE_NAMES: Record<CookieKind, string> = {
  sessionToken: 'auth.session-token',
  csrfToken: 'auth.csrf-token',
  flow: 'auth.flow',
  webauthnChallenge: 'auth.webauthn-challenge',
  accountLink: 'auth.account-link',
  knownDevice: 'auth.known-device',
  mfaPending: 'auth.mfa-pending',
  reauth: 'auth.reauth',
}

const NAME = /^[!#$%&'*+\-.^\w`|~]+$/

/**
 * The cookie set for the service's scheme (`https` known from `url`), or both variants when the
 * scheme is only known per request (`trustHost`, https undefined). Overrides that widen a cookie's
 * reach (a Domain, SameSite=None) are allowed, and said at start-up.
 */
export function buildCookieSets(
  overrides: CookieOverrides,
  dangerouslyAllowInsecure: boolean,
  warn: (message: string) => void,
  https?: boolean,
) {
  for (const [kind, override] of Object.entries(overrides) as Array<[string, CookieOverride]>) {
    const options = override.options ?? {}
    checkAttributes(`cookies.${kind}.options`, options)
    if (options.domain !== undefined)
      warn(
        `\`cookies.${kind}.options.domain\` sends the cookie to every subdomain of ${options.domain}; any of them can read or plant it`,
      )
    if (options.path !== undefined && options.path !== '/')
      warn(
        `\`cookies.${kind}.options.path\` rules out the __Host- prefix: on https a sibling subdomain can then plant the cookie`,
      )
    if (https !== false && override.name !== undefined && !override.name.startsWith('__Host-'))
      warn(`\`cookies.${kind}.name\` has no __Host- prefix: on https a sibling subdomain can plant the cookie`)
    if (options.sameSite === 'none')
      warn(`\`cookies.${kind}.options.sameSite\` is 'none': the cookie goes along with requests from other sites`)
  }
  if (https !== undefined) {
    const set = buildCookieSet(https, overrides, dangerouslyAllowInsecure)
    return Object.freeze({ secure: set, plain: set })
  }
  return Object.freeze({
    secure: buildCookieSet(true, overrides, dangerouslyAllowInsecure),
    plain: buildCookieSet(false, overrides, dangerouslyAllowInsecure),
  })
}

function checkAttributes(option: string, options: NonNullable<CookieOverride['options']>): void {
  if (
    options.domain !== undefined &&
    (typeof options.domain !== 'string' || !/^\.?[a-z0-9-]+(?:\.[a-z0-9-]+)*$/i.test(options.domain))
  ) {
    throw new ConfigurationError(
      `\`${option}.domain\` must be a host name such as 'example.com'; got ${JSON.stringify(options.domain)}`,
    )
  }
  if (
    options.path !== undefined &&
    (typeof options.path !== 'string' || !/^\/[\x21-\x3a\x3c-\x7e]*$/.test(options.path))
  ) {
    throw new ConfigurationError(
      `\`${option}.path\` must be a path starting with '/' (no spaces or ';'); got ${JSON.stringify(options.path)}`,
    )
  }
  if (options.sameSite !== undefined && !['lax', 'strict', 'none'].includes(options.sameSite)) {
    throw new ConfigurationError(
      `\`${option}.sameSite\` must be 'lax', 'strict' or 'none'; got ${JSON.stringify(options.sameSite)}`,
    )
  }
  if (options.secure !== undefined && typeof options.secure !== 'boolean') {
    throw new ConfigurationError(`\`${option}.secure\` must be true or false; got ${JSON.stringify(options.secure)}`)
  }
}

export function buildCookieSet(
  https: boolean,
  overrides: CookieOverrides,
  dangerouslyAllowInsecure: boolean,
): CookieSet {
  const set = {} as Record<CookieKind, CookieDef>
  for (const kind of Object.keys(BASE_NAMES) as CookieKind[]) {
    set[kind] = buildCookie(kind, https, overrides[kind] ?? {}, dangerouslyAllowInsecure)
  }
  return Object.freeze(set)
}

function buildCookie(
  kind: CookieKind,
  https: boolean,
  override: CookieOverride,
  dangerouslyAllowInsecure: boolean,
): CookieDef {
  const option = `cookies.${kind}`
  const options = override.options ?? {}
  const path = options.path ?? '/'
  const sameSite = options.sameSite ?? 'lax'
  const secure = options.secure ?? https
  if (https && !secure && !dangerouslyAllowInsecure) {
    throw new ConfigurationError(
      `\`${option}.options.secure\` is false on an https service, which lets the cookie travel in clear text; remove it (or set \`dangerouslyAllowInsecureCookies: true\` for a test setup)`,
    )
  }
  if (sameSite === 'none' && !secure) {
    throw new ConfigurationError(
      `\`${option}.options.sameSite\` 'none' needs a Secure cookie (an https \`url\`); use 'lax' or 'strict'`,
    )
  }
  const hostOnlyRoot = options.domain === undefined && path === '/'
  const name = override.name ?? defaultName(kind, secure, hostOnlyRoot)
  if (!NAME.test(name)) {
    throw new ConfigurationError(`\`${option}.name\` must be a valid cookie name; got ${JSON.stringify(name)}`)
  }
  if (name.startsWith('__Host-') && !(secure && hostOnlyRoot)) {
    throw new ConfigurationError(
      `\`${option}.name\` starts with __Host-, which browsers accept only on a Secure cookie with Path=/ and no Domain; rename it or remove the domain/path override`,
    )
  }
  if (name.startsWith('__Secure-') && !secure) {
    throw new ConfigurationError(
      `\`${option}.name\` starts with __Secure-, which browsers accept only on a Secure cookie (an https \`url\`); rename it`,
    )
  }
  let attrs = `; Path=${path}; HttpOnly; SameSite=${sameSite[0]!.toUpperCase()}${sameSite.slice(1)}`
  if (options.domain !== undefined) attrs += `; Domain=${options.domain}`
  if (secure) attrs += '; Secure'
  return Object.freeze({ name, attrs })
}

/**
 * On https every cookie is `__Host-` (Secure, Path=/, no Domain): a sibling subdomain can plant a
 * `__Secure-` cookie for the parent domain, but never a `__Host-` one. Only a cookie the app gives
 * a Domain or another Path falls back to `__Secure-`.
 */
function defaultName(kind: CookieKind, secure: boolean, hostOnlyRoot: boolean): string {
  const base = BASE_NAMES[kind]
  if (!secure) return base
  return hostOnlyRoot ? `__Host-${base}` : `__Secure-${base}`
}

/**
 * The cookie that brings what the user typed into the e-mail field back to the sign-in page after
 * EmailSignin. Only `{base}/signin` ever sees it (so it cannot be `__Host-`, which needs Path=/: on
 * https it is `__Secure-`); the address does not travel to the rest of the site, nor into a URL.
 */
export function typedAddressCookie(base: { readonly path: string; readonly secure: boolean }): CookieDef {
  const name = base.secure ? '__Secure-auth.email-typed' : 'auth.email-typed'
  return { name, attrs: `; Path=${base.path}/signin; HttpOnly; SameSite=Lax${base.secure ? '; Secure' : ''}` }
}

/** `cookies`, its keys checked (each kind's `name` and `options`). */
export function checkedCookies(value: unknown): Record<string, unknown> {
  const cookies = optionalObject(value, 'cookies')
  checkKeys(
    cookies,
    ['sessionToken', 'csrfToken', 'flow', 'webauthnChallenge', 'accountLink', 'knownDevice', 'mfaPending', 'reauth'],
    'cookies.',
  )
  for (const [kind, override] of Object.entries(cookies)) {
    checkKeys(optionalObject(override, `cookies.${kind}`), ['name', 'options'], `cookies.${kind}.`)
    checkKeys(
      optionalObject((override as Record<string, unknown>).options, `cookies.${kind}.options`),
      ['domain', 'path', 'sameSite', 'secure'],
      `cookies.${kind}.options.`,
    )
  }
  return cookies
}
