import { domainToASCII } from 'node:url'
import type { Context } from '../../core/context'
import { clearCookie, setCookie } from '../../infra/http/cookies'
import { open, seal } from '../../infra/crypto/jwe'
import type { KeyRing } from '../../infra/crypto/keys'
import type { AccountType, IdentityKey } from './store'

/**
 * The account-link cookie (`auth.account-link`), sealed with its own key: one link in progress in
 * this browser, either
 * - `link`: the signed-in user asked to link the identity of `provider` (`link=true`), or
 * - `confirm`: an identity whose verified address belongs to `userId` waits for that user to sign
 *   in with a way in they already have (the confirm path).
 * Both end with the next sign-in in this browser, and both are bound to the user: nothing in the
 * cookie is linked to anyone else, whatever the session is by then.
 */
export type LinkState =
  | {
      readonly kind: 'link'
      readonly userId: string
      readonly provider: string
      /** The address typed for an e-mail link: the one identity that link may link. */
      readonly address?: string
      readonly exp: number
    }
  | {
      readonly kind: 'confirm'
      readonly userId: string
      readonly identity: IdentityKey & { readonly type: AccountType; readonly label: string | null }
      readonly exp: number
    }

/** Seconds a `link=true` may take at the provider (an OAuth flow's own limit). */
export const LINK_SECONDS = 15 * 60
/** Seconds the confirm path waits for the user's sign-in. */
export const CONFIRM_SECONDS = 10 * 60

const TYPES: ReadonlySet<string> = new Set(['oauth', 'email', 'webauthn', 'credentials'])

export function writeLinkState(ctx: Context, keys: KeyRing, state: LinkState): void {
  const seconds = Math.max(1, state.exp - Math.floor(Date.now() / 1000))
  setCookie(ctx.res, ctx.cookieSet.accountLink, seal(keys.current, state), seconds)
}

export function clearLinkState(ctx: Context): void {
  if (ctx.cookies[ctx.cookieSet.accountLink.name] !== undefined) clearCookie(ctx.res, ctx.cookieSet.accountLink)
}

/** The browser's link in progress, or null: absent, not ours, expired, or of any other shape. */
export function readLinkState(ctx: Context, keys: KeyRing): LinkState | null {
  const opened = open(keys, ctx.cookies[ctx.cookieSet.accountLink.name])
  if (!opened) return null
  const { kind, userId, exp } = opened
  if (typeof userId !== 'string' || userId === '' || typeof exp !== 'number' || exp <= Date.now() / 1000) return null
  if (kind === 'link' && typeof opened.provider === 'string') {
    const { provider, address } = opened
    if (address !== undefined && typeof address !== 'string') return null
    return { kind, userId, provider, ...(address === undefined ? {} : { address }), exp }
  }
  const identity = opened.identity as Record<string, unknown> | null
  if (kind !== 'confirm' || typeof identity !== 'object' || identity === null) return null
  const { provider, issuer, subject, type, label } = identity
  if (typeof provider !== 'string' || typeof issuer !== 'string' || typeof subject !== 'string') return null
  if (typeof type !== 'string' || !TYPES.has(type) || (label !== null && typeof label !== 'string')) return null
  return { kind, userId, identity: { provider, issuer, subject, type: type as AccountType, label }, exp }
}

/**
 * Whether the identity is the one the link was asked for. An e-mail sign-in link is spent in any
 * browser: only the address typed with `link=true` is linked, not another one whose link is
 * opened in this browser meanwhile. Compared as the e-mail provider's default rule makes the
 * address's identity (Unicode NFKC, trimmed, lower case, the domain in ASCII); an app's own
 * `normalizeIdentifier` that changes more than that makes its links ordinary sign-ins.
 */
export function asksFor(pending: LinkState & { kind: 'link' }, key: IdentityKey | null, type: AccountType): boolean {
  if (key === null || type !== 'email') return true
  if (pending.address === undefined) return false
  const typed = pending.address.normalize('NFKC').trim()
  const at = typed.lastIndexOf('@')
  const domain = domainToASCII(typed.slice(at + 1).toLowerCase())
  return at > 0 && domain !== '' && `${typed.slice(0, at).toLowerCase()}@${domain}` === key.subject
}
