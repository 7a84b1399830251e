import type { Context } from '../context'
import { randomToken } from '../crypto/random'
import { normalizeAddress } from '../providers/email-address'
import {
  addressHash,
  addressWithinLimit,
  ipWithinLimit,
  keepToken,
  type EmailRuntime,
} from '../providers/email-runtime'
import { sendSignInMail } from '../providers/email-send'
import type { EmailProvider } from '../providers/types'
import { safeCallbackUrl } from '../urls/callback-url'
import { providerUrls } from '../urls/provider-urls'
import { askSignIn } from './decide'

/**
 * POST /signin/email (CSRF already checked): the address is normalised and checked, the app's
 * signIn callback asked, the rate limits counted; then a link whose token only this mail holds
 * (the store keeps a keyed hash of it) is sent, and the browser goes to the "check your e-mail"
 * page. Over a limit the answer is the same as for a sent mail, so nobody learns anything about an
 * address; a mail that could not be sent leaves no valid link behind.
 */
export async function startEmailSignIn(ctx: Context, runtime: EmailRuntime): Promise<void> {
  const { svc } = ctx
  const { provider } = runtime
  const failed = () => ctx.redirectToError('EmailSignin')
  const sent = () => ctx.redirect(ctx.serviceUrl('/verify-request', { provider: provider.id, type: 'email' }))
  const identifier = identify(provider, ctx.param('email'))
  if (identifier === null) {
    svc.log('info', 'email.refused', 'a sign-in link was refused: the address is not one plain mailbox')
    return failed()
  }
  const hash = addressHash(runtime, identifier)
  // Counted before the app's signIn callback is asked, so that its answers cannot be probed at will.
  if (!(await ipWithinLimit(runtime, ctx.req.ip))) return limited(ctx, hash, 'ip', sent)
  const user = { id: identifier, email: identifier }
  const account = { provider: provider.id, type: 'email' as const, providerAccountId: identifier }
  const decision = await askSignIn(ctx, { user, account, email: { verificationRequest: true } })
  if (decision.kind === 'deny') return ctx.redirectToError(decision.code)
  if (decision.kind === 'redirect')
    return ctx.redirect(safeCallbackUrl(decision.url, ctx.base, svc.config.trustedOrigins))

  if (!(await addressWithinLimit(runtime, identifier))) return limited(ctx, hash, 'address', sent)
  const callbackUrl = await ctx.callbackTarget()
  const token = randomToken(32)
  const expires = Math.floor(Date.now() / 1000) + provider.maxAge
  const key = await keepToken(runtime, token, { identifier, expires })
  const url = `${providerUrls(ctx.base, provider.id).callbackUrl}?${new URLSearchParams({ token, email: identifier, callbackUrl }).toString()}`
  try {
    await sendSignInMail(
      provider,
      {
        identifier,
        url,
        host: new URL(ctx.base.origin).host,
        expires: new Date(expires * 1000),
      },
      ctx.messages(),
    )
  } catch (error) {
    // Unsent, the link is useless anyway: a store that fails to forget it changes nothing for the user.
    await runtime.store.remove(key).catch(() => undefined)
    svc.log('error', 'email.send_failed', `the sign-in mail could not be sent (${sendFailure(error)})`, {
      addressHash: hash,
    })
    return failed()
  }
  svc.log('info', 'email.sent', 'a sign-in link was sent', { addressHash: hash })
  sent()
}

/** Over a limit the answer is the one a sent mail gets: nobody learns anything about the address. */
function limited(ctx: Context, hash: string, limit: 'ip' | 'address', sent: () => void): void {
  ctx.svc.log('warn', 'email.rate_limited', `no sign-in link was sent: over the ${limit} limit`, {
    addressHash: hash,
    limit,
  })
  sent()
}

/**
 * What the log may say of a failed send. The error's own text can name the recipient and hold the
 * link: only a code of the usual shape (nodemailer's `EENVELOPE`, an SMTP reply code) is kept.
 */
function sendFailure(error: unknown): string {
  try {
    const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown }
    const parts = [
      typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,31}$/.test(code) ? code : '',
      typeof responseCode === 'number' ? String(responseCode) : '',
    ]
    const known = parts.filter(Boolean).join(' ')
    if (known) return known
    return error instanceof Error && error.message.includes('no answer within') ? 'no answer in time' : 'failed'
  } catch {
    return 'failed'
  }
}

/** The package's rules, then the app's own (whose answer must pass the package's rules again). */
function identify(provider: EmailProvider, raw: string | null): string | null {
  const address = normalizeAddress(raw)
  if (address === null || !provider.normalizeIdentifier) return address
  try {
    return normalizeAddress(provider.normalizeIdentifier(address))
  } catch {
    return null
  }
}
