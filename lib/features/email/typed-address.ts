import { typedAddressCookie } from '../../infra/config/cookies'
import type { Context } from '../../core/context'
import { open, seal } from '../../infra/crypto/jwe'
import type { KeyRing } from '../../infra/crypto/keys'
import { clearCookie, setCookie } from '../../infra/http/cookies'

/**
 * After EmailSignin the built-in sign-in page shows the e-mail field as the user left it. The
 * address never goes into a URL (access logs, Referer, browser history): it is sealed into a
 * cookie that only `{base}/signin` sees, lives a minute, and is read once.
 */

/** Long enough for a typed address with a typo; a longer value is not worth carrying back. */
const MAX_TYPED_LENGTH = 320
const LIFETIME_SECONDS = 60

/**
 * Keeps `typed` for the sign-in page, when the failed request came from that page's form: not in
 * JSON mode (the NextAuth client keeps its own field), not when the app shows its own pages.
 */
export function keepTypedAddress(ctx: Context, ring: KeyRing, typed: string | null): void {
  const { pages } = ctx.svc.config
  if (ctx.jsonMode || pages.signIn || pages.error) return
  if (typed === null || typed === '' || typed.length > MAX_TYPED_LENGTH) return
  const payload = { a: typed, exp: Math.floor(Date.now() / 1000) + LIFETIME_SECONDS }
  setCookie(ctx.res, typedAddressCookie(ctx.base), seal(ring.current, payload), LIFETIME_SECONDS)
}

/**
 * What the user typed, when this is the sign-in page after EmailSignin and the cookie opens and is
 * fresh; otherwise undefined. The cookie is cleared whenever it came along: it is read once.
 */
export function takeTypedAddress(ctx: Context, ring: KeyRing, afterEmailSignin: boolean): string | undefined {
  const def = typedAddressCookie(ctx.base)
  const value = ctx.cookies[def.name]
  if (value === undefined) return undefined
  clearCookie(ctx.res, def)
  if (!afterEmailSignin) return undefined
  const payload = open(ring, value)
  const typed = payload?.a
  const exp = payload?.exp
  if (typeof typed !== 'string' || typed.length > MAX_TYPED_LENGTH || typeof exp !== 'number') return undefined
  return exp >= Math.floor(Date.now() / 1000) ? typed : undefined
}
