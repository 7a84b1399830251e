import type { AccountInfo, Provider } from '../../lib'
import { readableTime } from './pages'

const escape = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** What the home page shows of the signed-in user's ways in. */
export interface WaysInView {
  /** The service's CSRF token: every form posts it. */
  readonly csrfToken: string
  /** `listAccounts(userId)`: the accounts and the passkeys, the first linked first. */
  readonly ways: readonly AccountInfo[]
  /** The configured providers, for their names and for "Link another". */
  readonly providers: readonly Pick<Provider, 'id' | 'name' | 'type'>[]
}

function hidden(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('')
}

/** One way in, and "Unlink" (`POST {base}/unlink`): the service refuses the last one. */
function wayIn(basePath: string, way: AccountInfo, view: WaysInView): string {
  const provider = view.providers.find(({ id }) => id === way.provider)?.name ?? way.provider
  const details = [
    `linked ${readableTime(way.linkedAt)}`,
    way.lastUsedAt ? `last used ${readableTime(way.lastUsedAt)}` : 'not used yet',
  ]
  return (
    `<li class="way-in"><strong>${escape(provider)}</strong>${way.label ? `: ${escape(way.label)}` : ''}` +
    `<br><span class="details">${escape(details.join(' · '))}</span>` +
    `<form method="post" action="${escape(`${basePath}/unlink`)}">` +
    hidden({ csrfToken: view.csrfToken, callbackUrl: '/', accountId: way.id }) +
    `<button type="submit" class="button">Unlink</button></form></li>`
  )
}

/**
 * "Link another" for a provider the user has no way in with: its sign-in (`POST {base}/signin/:id`)
 * with `link=true`, which adds what comes back to this user. E-mail asks for the address to link;
 * a passkey is added with "Add a passkey" instead.
 */
function linkForm(basePath: string, provider: WaysInView['providers'][number], csrfToken: string): string {
  const address =
    provider.type === 'email'
      ? `<label for="link-email">Address to link</label>` +
        `<input type="email" id="link-email" name="email" required autocomplete="email">`
      : ''
  return (
    `<form method="post" action="${escape(`${basePath}/signin/${encodeURIComponent(provider.id)}`)}">` +
    hidden({ csrfToken, callbackUrl: '/', link: 'true' }) +
    address +
    `<button type="submit" class="button">Link ${escape(provider.name)}</button></form>`
  )
}

/**
 * password()'s change form (`GET {base}/password/change`), named as its page names itself: "Change
 * password" for a user who has one, "Add a password" for one who signs in otherwise (their verified
 * address becomes a way in; the page asks for a recent sign-in first). None without password().
 */
function passwordLink(basePath: string, view: WaysInView): string {
  const provider = view.providers.find(({ type }) => type === 'credentials')
  if (!provider) return ''
  const text = view.ways.some((way) => way.provider === provider.id) ? 'Change password' : 'Add a password'
  return `<p><a href="${escape(`${basePath}/password/change`)}">${text}</a></p>`
}

/**
 * The home page's "Your ways in": each with when it was linked and last used and "Unlink", the
 * password's change form, then "Link another" for each provider not linked yet. Linking and
 * unlinking need a recent sign-in: an older session is sent to sign in again first, and comes back here.
 */
export function waysInSection(basePath: string, view: WaysInView): string {
  const linked = new Set(view.ways.map(({ provider }) => provider))
  const unlinked = view.providers.filter(
    ({ id, type }) => type !== 'webauthn' && type !== 'credentials' && !linked.has(id),
  )
  return (
    `<h2>Your ways in</h2>` +
    `<ul class="ways-in">${view.ways.map((way) => wayIn(basePath, way, view)).join('')}</ul>` +
    passwordLink(basePath, view) +
    (unlinked.length
      ? `<h3>Link another</h3>` +
        `<p class="details">Sign in with it here, and it signs in to this account from then on. You may be asked to sign in again first.</p>` +
        unlinked.map((provider) => linkForm(basePath, provider, view.csrfToken)).join('')
      : '')
  )
}
