import type { Session } from '../../lib'

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The demo's own pages. `basePath` is the auth service's base path (the path of SERVICE_AUTH_URL,
 * `/api/auth` by default): the links to the service's pages and its stylesheet live under it.
 */
function page(basePath: string, title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escape(title)}</title><link rel="stylesheet" href="${escape(`${basePath}/assets/style.css`)}"></head><body><main class="card">${body}</main></body></html>`
  )
}

/** The home page: who is signed in, and the way in or out. */
export function homePage(basePath: string, session: Session | null): string {
  if (!session) {
    return page(
      basePath,
      'express-auth-service demo',
      `<h1>express-auth-service demo</h1><p>You are not signed in.</p>` +
        `<p><a href="${escape(`${basePath}/signin`)}">Sign in</a> · <a href="/private">A page for signed-in users</a></p>`,
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
      `<p><a href="/private">A page for signed-in users</a> · <a href="${escape(`${basePath}/signout`)}">Sign out</a></p>`,
  )
}

export function privatePage(basePath: string, session: Session): string {
  return page(
    basePath,
    'Private',
    `<h1>Private</h1><p>Only signed-in users see this page. Your session expires at ${escape(session.expires)}.</p><p><a href="/">Home</a></p>`,
  )
}
