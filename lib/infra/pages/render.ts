import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import * as ejs from 'ejs'
import { en, errorText, format, signinAlert, type Messages, type ViewName } from './messages'
import { brandOf } from './brands'
import { MFA_LOCALS, MFA_MODELS, type MfaViewData } from './mfa-views'
import {
  identifierField,
  keepingCallback,
  PASSWORD_LOCALS,
  PASSWORD_MODELS,
  type IdentifierKind,
  type PageModel,
  type PasswordViewData,
} from './password-views'

export type { ViewName, PasswordRuleCode } from './messages'
export type * from './password-views'
export type * from './mfa-views'

/** A provider as the sign-in page lists it (the shape of `GET /providers`, less `callbackUrl`). */
export interface ProviderLink {
  readonly id: string
  readonly name: string
  readonly type: 'oauth' | 'email' | 'webauthn' | 'credentials'
  /** Absolute: `{base}/signin/{id}`. */
  readonly signinUrl: string
}

/** `base` is the absolute service URL, e.g. `http://localhost:3000/api/auth`, without trailing slash. */
export interface SigninData {
  readonly base: string
  readonly csrfToken: string
  readonly callbackUrl: string
  readonly providers: readonly ProviderLink[]
  /** An error code (the `error` query value, or `MissingCSRF`); shown by its message, never raw. */
  readonly error?: string
  /** Fills in the e-mail field. */
  readonly email?: string
  /** With a `passkey()` provider: where its options and answers go (the page then loads its script). */
  readonly passkey?: { readonly optionsUrl: string; readonly callbackUrl: string }
  /** With a `password()` provider: its form, after the OAuth buttons and before the e-mail form. */
  readonly credentials?: {
    /** Absolute: `{base}/callback/credentials`. */
    readonly action: string
    readonly identifier: IdentifierKind
    /** The links under the form, each left out when null. */
    readonly forgotUrl: string | null
    readonly signUpUrl: string | null
  }
}

export interface SignoutData {
  readonly base: string
  readonly csrfToken: string
  readonly callbackUrl: string
}

export interface ErrorData {
  /** Without it the page has no stylesheet and no sign-in link. */
  readonly base?: string
  /** Any string; codes without a message show the `Default` texts. */
  readonly code: string
}

export interface VerifyRequestData {
  readonly base: string
}

export interface EmailConfirmData {
  readonly base: string
  /** Absolute URL the form posts to: `{base}/callback/email`. */
  readonly action: string
  readonly token: string
  readonly email: string
  readonly callbackUrl: string
  readonly csrfToken: string
  /**
   * A password sign-up's link: the form asks again for the password chosen at sign-up (the link
   * creates the account only for whoever chose it). `wrongPassword`: the last try did not match.
   */
  readonly askPassword?: { readonly label: string; readonly wrongPassword?: string }
}

export interface ViewData extends PasswordViewData, MfaViewData {
  signin: SigninData
  signout: SignoutData
  error: ErrorData
  'verify-request': VerifyRequestData
  'email-confirm': EmailConfirmData
}

/** A file the pages load from our own routes, and its ETag. */
export interface Asset {
  readonly body: Buffer
  readonly etag: string
}

/**
 * What the pages take from `theme` (lib/infra/config/theme.ts checks it): the colour scheme, as a class
 * on `<html>` that views/style.css reads; the logo, as an `<img>` above the card; and the
 * stylesheet, which carries the app's colours. No colour is ever written into a page: the CSP keeps
 * `style-src 'self'`, with no inline style at all.
 */
export interface PageTheme {
  /** 'auto': the reader's `prefers-color-scheme`; 'light' or 'dark': always that one. */
  readonly colorScheme: 'auto' | 'light' | 'dark'
  /** An https URL or a path on the site, shown above the card. */
  readonly logo?: string
  /** The CSP `img-src` source that the logo needs: its origin, or `'self'`. */
  readonly logoSource?: string
  /** `GET /assets/style.css`: views/style.css, then the app's colours. */
  readonly stylesheet: Asset
}

export interface RenderOptions {
  /** `Cache-Control: private, no-cache, no-store`. Default: on for the pages that carry a token. */
  readonly noStore?: boolean
  /** What the page's forms may reach besides its own origin: see pageCsp. */
  readonly formAction?: readonly string[] | null
  /** The language's texts (lib/infra/pages/languages.ts). Default: English. */
  readonly messages?: Messages
  /** `theme`'s colour scheme and logo (lib/infra/config/theme.ts). Default: the reader's scheme, no logo. */
  readonly theme?: Pick<PageTheme, 'colorScheme' | 'logo' | 'logoSource'>
}

type Models = { readonly [V in ViewName]: (t: Messages, data: ViewData[V]) => PageModel }

/** What each view may use: the keys of its model's locals (strict mode: anything else throws). */
const LOCALS: Readonly<Record<ViewName | 'layout', readonly string[]>> = {
  layout: ['t', 'title', 'stylesheet', 'body', 'scheme', 'logo'],
  signin: [
    't',
    'fmt',
    'csrfToken',
    'callbackUrl',
    'oauthProviders',
    'emailProvider',
    'alert',
    'email',
    'passkey',
    'credentials',
  ],
  signout: ['t', 'base', 'csrfToken', 'callbackUrl'],
  error: ['t', 'text', 'signinUrl'],
  'verify-request': ['t', 'fmt', 'site', 'siteName'],
  'email-confirm': ['t', 'fmt', 'action', 'token', 'email', 'callbackUrl', 'csrfToken', 'askPassword'],
  ...PASSWORD_LOCALS,
  ...MFA_LOCALS,
}

const MODELS: Models = {
  signin: (t, { base, csrfToken, callbackUrl, providers, error, email, passkey, credentials }) => ({
    title: t.titles.signin,
    ...(passkey ? { script: `${base}/assets/passkey.js` } : {}),
    locals: {
      csrfToken,
      callbackUrl,
      oauthProviders: providers.filter((p) => p.type === 'oauth').map((p) => ({ ...p, brand: brandOf(p.id) })),
      emailProvider: providers.find((p) => p.type === 'email'),
      alert: error ? signinAlert(t, error) : undefined,
      email: email ?? '',
      passkey: passkey && { ...passkey, scriptUrl: `${base}/assets/passkey.js` },
      credentials: credentials && {
        action: credentials.action,
        field: identifierField(t, credentials.identifier),
        // The links keep where the user is going, through sign-up or a reset.
        forgotUrl: credentials.forgotUrl && keepingCallback(credentials.forgotUrl, callbackUrl),
        signUpUrl: credentials.signUpUrl && keepingCallback(credentials.signUpUrl, callbackUrl),
      },
    },
  }),
  signout: (t, { base, csrfToken, callbackUrl }) => ({
    title: t.titles.signout,
    locals: { base, csrfToken, callbackUrl },
  }),
  error: (t, { base, code }) => {
    const text = errorText(t, code)
    return { title: text.heading, locals: { text, signinUrl: base === undefined ? undefined : `${base}/signin` } }
  },
  'verify-request': (t, { base }) => {
    const site = new URL(base)
    return { title: t.titles['verify-request'], locals: { site: site.origin, siteName: site.host } }
  },
  'email-confirm': (t, { action, token, email, callbackUrl, csrfToken, askPassword }) => ({
    title: t.titles['email-confirm'],
    locals: { action, token, email, callbackUrl, csrfToken, askPassword: askPassword ?? null },
  }),
  ...PASSWORD_MODELS,
  ...MFA_MODELS,
}

/** Pages whose HTML holds a CSRF token, an e-mail link's token or a second factor's secret: never cached. */
const CARRIES_TOKEN: ReadonlySet<ViewName> = new Set<ViewName>([
  'signin',
  'signout',
  'email-confirm',
  'password-signup',
  'password-forgot',
  'password-reset',
  'password-change',
  'mfa',
  'mfa-setup',
  'mfa-codes',
])

/**
 * The package's own views/ folder: three levels above lib/infra/pages (ts-jest), four above
 * dist/lib/infra/pages (the build). Looked up by a file only this package has, and never further up,
 * so that a host app's own views/ is never picked up.
 */
function findViewsDir(from: string): string {
  for (let dir = from, level = 0; level < 5; level++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'views')
    if (existsSync(path.join(candidate, 'email-confirm.ejs'))) return candidate
  }
  throw new Error(`express-auth-service: the views/ folder was not found above ${from}`)
}

export const VIEWS_DIR = findViewsDir(__dirname)

/** Compiled once, here, with ejs directly: the host app's view engine and settings are not used. */
function compileView(name: ViewName | 'layout'): ejs.TemplateFunction {
  const filename = path.join(VIEWS_DIR, `${name}.ejs`)
  return ejs.compile(readFileSync(filename, 'utf8'), {
    filename,
    strict: true,
    destructuredLocals: [...LOCALS[name]],
    rmWhitespace: true,
  })
}

const LAYOUT = compileView('layout')
const TEMPLATES: Readonly<Record<ViewName, ejs.TemplateFunction>> = Object.freeze({
  signin: compileView('signin'),
  signout: compileView('signout'),
  error: compileView('error'),
  'verify-request': compileView('verify-request'),
  'email-confirm': compileView('email-confirm'),
  'password-signup': compileView('password-signup'),
  'password-forgot': compileView('password-forgot'),
  'password-reset': compileView('password-reset'),
  'password-change': compileView('password-change'),
  'password-sent': compileView('password-sent'),
  'password-done': compileView('password-done'),
  mfa: compileView('mfa'),
  'mfa-setup': compileView('mfa-setup'),
  'mfa-codes': compileView('mfa-codes'),
})

/** The pages need nothing but their own stylesheet: no script at all, no frames, no base. */
const CSP = "default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'"

/**
 * A page's Content-Security-Policy. `formAction`: the origins besides the page's own that its forms
 * (and the redirects after them) may reach; none given: `form-action 'none'` (a page without a form);
 * null: no `form-action` at all (a destination is not known). `image`: the `img-src` of `theme.logo`.
 */
export function pageCsp(formAction?: readonly string[] | null, script?: string, image?: string): string {
  // A page with a passkey button (sign-in, second factor) runs our one script, named by its full
  // URL (the view's model names it), which talks to our own routes only; every other page has none.
  const scripted = script === undefined ? CSP : `${CSP}; script-src ${script}; connect-src 'self'`
  // `theme.logo`: the one image, from its own origin (or 'self' for a path on the site).
  const csp = image === undefined ? scripted : `${scripted}; img-src ${image}`
  if (formAction === null) return csp
  if (formAction === undefined) return `${csp}; form-action 'none'`
  return `${csp}; form-action ${["'self'", ...formAction].join(' ')}`
}

/** A rendered page: its HTML, and whether it carries a token (then no cache may keep it). */
export interface RenderedPage {
  readonly html: string
  readonly noStore: boolean
  readonly csp: string
}

/** Renders a built-in page. Writing it is lib/infra/http's part (page-response.ts). */
export function renderView<V extends ViewName>(view: V, data: ViewData[V], options: RenderOptions = {}): RenderedPage {
  const t = options.messages ?? en
  const model = MODELS[view](t, data)
  const body = TEMPLATES[view]({ ...model.locals, t, fmt: format })
  const stylesheet = data.base === undefined ? undefined : `${data.base}/assets/style.css`
  const { colorScheme = 'auto', logo, logoSource } = options.theme ?? {}
  // The logo goes with the stylesheet: a page without it (no service URL) shows neither.
  const shown = stylesheet === undefined ? undefined : logo
  return {
    html: LAYOUT({ t, title: model.title, stylesheet, body, scheme: colorScheme, logo: shown }),
    noStore: options.noStore ?? CARRIES_TOKEN.has(view),
    csp: pageCsp(options.formAction, model.script, shown === undefined ? undefined : logoSource),
  }
}

const STYLESHEET_FILE = path.join(VIEWS_DIR, 'style.css')
const STYLESHEET_BYTES = readFileSync(STYLESHEET_FILE)

/** The pages' only stylesheet, and its ETag: size and modification time, so it changes whenever the installed file does. */
export const STYLESHEET = Object.freeze({
  body: STYLESHEET_BYTES,
  etag: `"${STYLESHEET_BYTES.length.toString(36)}-${Math.floor(statSync(STYLESHEET_FILE).mtimeMs).toString(36)}"`,
})
