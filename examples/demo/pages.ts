import type { Session } from '../../lib'

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The demo's own pages. `basePath` is the auth service's base path (the path of SERVICE_AUTH_URL,
 * `/api/auth` by default): the links to the service's pages and its stylesheet live under it.
 */
function page(basePath: string, title: string, body: string, script?: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escape(title)}</title><link rel="stylesheet" href="${escape(`${basePath}/assets/style.css`)}">` +
    `${script ? `<script src="${escape(script)}" defer></script>` : ''}</head><body><main class="card">${body}</main></body></html>`
  )
}

/**
 * The demo's own pages allow their stylesheet and nothing else, as the service's pages do; the
 * client page adds its one script and the calls it makes to the service, all on this origin.
 */
export const PAGE_CSP = "default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'"
export const CLIENT_PAGE_CSP = `${PAGE_CSP}; script-src 'self'; connect-src 'self'`

const CLIENT_LINK = '<p><a href="/client">The same with the NextAuth.js client library</a></p>'

/** The home page: who is signed in, and the way in or out. */
export function homePage(basePath: string, session: Session | null): string {
  if (!session) {
    return page(
      basePath,
      'express-auth-service demo',
      `<h1>express-auth-service demo</h1><p>You are not signed in.</p>` +
        `<p><a href="${escape(`${basePath}/signin`)}">Sign in</a> · <a href="/private">A page for signed-in users</a></p>` +
        CLIENT_LINK,
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
      `<p><a href="/private">A page for signed-in users</a> · <a href="${escape(`${basePath}/signout`)}">Sign out</a></p>` +
      CLIENT_LINK,
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
export function clientPage(basePath: string): string {
  return page(
    basePath,
    'express-auth-service demo: the client library',
    `<h1>The NextAuth.js client library</h1><div id="client-root" data-base-path="${escape(basePath)}"><p>Loading…</p></div>` +
      `<p><a href="/">Home</a></p>`,
    '/client.js',
  )
}
