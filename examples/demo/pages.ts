import type { DeviceSession, Session } from '../../lib'

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The demo's own pages. `basePath` is the auth service's base path (the path of SERVICE_AUTH_URL,
 * `/api/auth` by default): the links to the service's pages and its stylesheet live under it.
 */
function page(basePath: string, title: string, body: string, script?: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escape(title)}</title><link rel="stylesheet" href="${escape(`${basePath}/assets/style.css`)}">` +
    `<link rel="stylesheet" href="/demo.css">` +
    `${script ? `<script src="${escape(script)}" defer></script>` : ''}</head><body><main class="card">${body}</main></body></html>`
  )
}

/**
 * The demo's own pages allow their stylesheet and nothing else, as the service's pages do; the
 * client page adds its one script and the calls it makes to the service, all on this origin.
 */
export const PAGE_CSP = "default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'"
export const CLIENT_PAGE_CSP = `${PAGE_CSP}; script-src 'self'; connect-src 'self'`

/**
 * The user's picture is the provider's URL (`session.user.image`), loaded from the provider's host:
 * pages that show it allow images from https: and from `pictureOrigin` (the embedded identity
 * provider, on http://127.0.0.1), and nothing else.
 */
export const withPictures = (csp: string, pictureOrigin: string | null) =>
  `${csp}; img-src https:${pictureOrigin ? ` ${pictureOrigin}` : ''}`

/** The picture's URL when the page's CSP lets the browser load it, else null (no broken image). */
export function pictureUrl(image: unknown, pictureOrigin: string | null): string | null {
  if (typeof image !== 'string' || image.length > 2048 || !URL.canParse(image)) return null
  const url = new URL(image)
  return url.protocol === 'https:' || url.origin === pictureOrigin ? url.href : null
}

const picture = (src: string | null) =>
  src
    ? `<p class="picture"><img src="${escape(src)}" alt="" width="64" height="64" referrerpolicy="no-referrer"></p>`
    : ''

/**
 * The demo's few styles beside the service's stylesheet (served at /demo.css): its lists, the
 * picture, and the client page's form, in the look of the built-in pages (their `.button`).
 */
export const DEMO_CSS = `h2 { margin: 1.5rem 0 0.5rem; font-size: 1.125rem; }
ul { margin: 0 0 1rem; padding-left: 1.25rem; }
li { margin: 0 0 0.25rem; }
.picture { display: flex; justify-content: center; }
.picture img { border-radius: 50%; border: 1px solid var(--border); }
.devices { list-style: none; padding: 0; }
.devices li { margin: 0 0 0.75rem; padding: 0.5rem 0.75rem; border: 1px solid var(--border); border-radius: 0.5rem; }
.devices li.current { border-color: var(--muted); }
.devices .details { color: var(--muted); font-size: 0.875rem; }
.devices form { margin-top: 0.5rem; }
.button + .button, form + .button { margin-top: 0.75rem; }
#client-root { margin: 0 0 1rem; }
label { display: block; margin: 0 0 0.25rem; }
.ways-in { list-style: none; padding: 0; }
.ways-in li { margin: 0 0 0.75rem; padding: 0.5rem 0.75rem; border: 1px solid var(--border); border-radius: 0.5rem; }
.ways-in form { margin-top: 0.5rem; }
.details { color: var(--muted); font-size: 0.875rem; }
h3 { margin: 1rem 0 0.5rem; font-size: 1rem; }
input[type="text"], input[type="email"] {
  display: block; width: 100%; min-height: 2.75rem; margin: 0 0 0.75rem; padding: 0.5rem 0.75rem;
  font: inherit; color: var(--text); background: var(--card); border: 1px solid var(--muted); border-radius: 0.5rem;
}
`

const CLIENT_LINK = '<p><a href="/client">The same with the NextAuth.js client library</a></p>'

/**
 * The built-in pages, linked so a visitor can see each one. The error page shows a code's own
 * message; the verify-request page is the one shown after an e-mail link is asked for.
 */
function builtInPages(basePath: string, signedIn: boolean): string {
  const link = (path: string, text: string) => `<li><a href="${escape(`${basePath}${path}`)}">${escape(text)}</a></li>`
  return (
    `<h2>The built-in pages</h2><ul>` +
    (signedIn ? link('/signout', 'The sign-out page') : link('/signin', 'The sign-in page')) +
    link('/verify-request?provider=email&type=email', 'The "Check your email" page') +
    link('/error?error=Verification', 'The error page (a spent sign-in link)') +
    link('/session', 'The session as JSON (GET /session)') +
    `</ul>`
  )
}

/** What the home page shows of the signed-in user's devices. */
export interface DevicesView {
  /** The service's CSRF token (`getCsrfToken(req, res)`): every form of the page posts it. */
  readonly csrfToken: string
  /** The user's sessions (`listSessions(userId)`), or null with cookie sessions, which cannot be listed. */
  readonly sessions: readonly DeviceSession[] | null
  /** This browser's session among them (`getSessionRecord(req).handle`). */
  readonly current: string | null
}

/** Where the demo's "Sign out this one" posts: the app's own route, which calls revokeSession. */
export const SIGN_OUT_DEVICE_PATH = '/devices/sign-out'

const DATE_TIME = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' })
/** `27 Nov 2026, 19:35 UTC`, as the devices and passkeys lists show a time. */
export const readableTime = (date: Date) => `${DATE_TIME.format(date)} UTC`
/** listSessions gives seconds since the epoch. */
const when = (seconds: number) => readableTime(new Date(seconds * 1000))

/**
 * Where a session signed in from, as a person names it. listSessions counts an IPv6 client by its
 * /64, so this computer over IPv6 (::1) is `0:0:0:0::/64`, and over IPv4 127.0.0.1: both are localhost.
 */
export function place(address: string | null): string {
  if (address === null) return 'address unknown'
  return address === '0:0:0:0::/64' || address.startsWith('127.') ? 'localhost' : address
}

function form(action: string, fields: Record<string, string>, button: string): string {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('')
  return `<form method="post" action="${escape(action)}">${inputs}<button type="submit" class="button">${escape(button)}</button></form>`
}

function device(listed: DeviceSession, view: DevicesView): string {
  const isCurrent = listed.handle === view.current
  const details = [
    place(listed.address),
    listed.provider
      ? `signed in with ${listed.provider} at ${when(listed.signedInAt)}`
      : `signed in at ${when(listed.signedInAt)}`,
    `last seen ${when(listed.renewedAt)}`,
  ]
  return (
    `<li class="device${isCurrent ? ' current' : ''}"><strong>${escape(listed.userAgent ?? 'Unknown browser')}</strong>` +
    `${isCurrent ? ' <em>(this device)</em>' : ''}<br><span class="details">${escape(details.join(' · '))}</span>` +
    (isCurrent
      ? ''
      : form(SIGN_OUT_DEVICE_PATH, { csrfToken: view.csrfToken, handle: listed.handle }, 'Sign out this one')) +
    `</li>`
  )
}

/**
 * The user's devices: each session with where it signed in from, "Sign out this one" on the others,
 * and sign-out everywhere (or everywhere but here) through the service's own `POST /signout`.
 */
function devicesSection(basePath: string, view: DevicesView | null): string {
  if (!view) return ''
  const signOut = (field: 'everywhere' | 'others', button: string) =>
    form(`${basePath}/signout`, { csrfToken: view.csrfToken, callbackUrl: '/', [field]: 'true' }, button)
  const list = view.sessions
    ? `<ul class="devices">${view.sessions.map((listed) => device(listed, view)).join('')}</ul>`
    : `<p>Sessions are kept in encrypted cookies, which the server cannot list: start the demo with REDIS_URL to see each device. They can still be ended all at once.</p>`
  return (
    `<h2>Your devices</h2>${list}` +
    signOut('others', 'Sign out everywhere but here') +
    signOut('everywhere', 'Sign out everywhere')
  )
}

/** The signed-in user's sections of the home page, each drawn by its own module. */
export interface SignedInSections {
  readonly devices: DevicesView
  /** ./ways-in.ts */
  readonly waysIn: string
  /** ./passkeys.ts */
  readonly passkeys: string
  /** ./second-factor.ts */
  readonly secondFactor: string
}

/**
 * The home page: who is signed in, the session, their ways in, passkeys, second factors and
 * devices, and the way out.
 */
export function homePage(
  basePath: string,
  session: Session | null,
  pictureOrigin: string | null = null,
  parts: SignedInSections | null = null,
): string {
  if (!session) {
    return page(
      basePath,
      'express-auth-service demo',
      `<h1>express-auth-service demo</h1><p>You are not signed in.</p>` +
        `<p><a href="${escape(`${basePath}/signin`)}">Sign in</a> · ` +
        // password()'s sign-up page: the account exists once the mailed link is confirmed.
        `<a href="${escape(`${basePath}/password/signup`)}">Create an account</a> · ` +
        `<a href="/private">A page for signed-in users</a></p>` +
        CLIENT_LINK +
        builtInPages(basePath, false),
    )
  }
  // An e-mail sign-in has no name: the address alone, once.
  const name = session.user?.name
  const address = session.user?.email
  const who = name || address || 'someone'
  return page(
    basePath,
    'express-auth-service demo',
    `<h1>express-auth-service demo</h1><p>Signed in as <strong>${escape(who)}</strong>` +
      `${name && address ? ` (${escape(address)})` : ''}.</p>` +
      picture(pictureUrl(session.user?.image, pictureOrigin)) +
      `<p>Your session expires at ${escape(session.expires)}.</p>` +
      `<p><a href="/private">A page for signed-in users</a> · <a href="${escape(`${basePath}/signout`)}">Sign out</a></p>` +
      CLIENT_LINK +
      (parts ? parts.waysIn + parts.passkeys + parts.secondFactor : '') +
      devicesSection(basePath, parts?.devices ?? null) +
      builtInPages(basePath, true),
  )
}

export function privatePage(basePath: string, session: Session): string {
  return page(
    basePath,
    'Private',
    `<h1>Private</h1><p>Only signed-in users see this page. Your session expires at ${escape(session.expires)}.</p><p><a href="/">Home</a></p>`,
  )
}

/**
 * The client page: an empty root that /client.js (React and `next-auth/react`) fills in. It names
 * the service's base path for the script's SessionProvider.
 */
export function clientPage(basePath: string, pictureOrigin: string | null = null): string {
  return page(
    basePath,
    'express-auth-service demo: the client library',
    `<h1>The NextAuth.js client library</h1><div id="client-root" data-base-path="${escape(basePath)}"` +
      `${pictureOrigin ? ` data-picture-origin="${escape(pictureOrigin)}"` : ''}><p>Loading…</p></div>` +
      `<p><a href="/">Home</a></p>`,
    '/client.js',
  )
}
