import type { Context } from '../../core/context'
import { randomToken } from '../../infra/crypto/random'
import { emailIdentifier } from './address'
import { addressHash, addressWithinLimit, ipWithinLimit, keepToken, type EmailRuntime } from './runtime'
import { sendSignInMail } from './send'
import { until } from './timing'
import { safeCallbackUrl } from '../../infra/urls/callback-url'
import { providerUrls } from '../../infra/urls/provider-urls'
import { askSignIn } from '../../core/sign-in/decide'
import { keepTypedAddress } from './typed-address'

/**
 * POST /signin/email (CSRF already checked): the address is normalised and checked, the app's
 * signIn callback asked, the rate limits counted; then a link whose token only this mail holds
 * (the store keeps a keyed hash of it) is sent, and the browser goes to the "check your e-mail"
 * page. Over a limit, and when the mail server refuses the recipient, the answer is the one a
 * sent mail gets, so nobody learns anything about an address; only the mail system failing
 * answers EmailSignin (and the sign-in page then shows what was typed). A mail that did not go out
 * leaves no valid link behind.
 */
export async function startEmailSignIn(ctx: Context, runtime: EmailRuntime): Promise<void> {
  const { svc } = ctx
  const { provider } = runtime
  const failed = () => {
    keepTypedAddress(ctx, runtime.keys.typed, ctx.param('email'))
    ctx.redirectToError('EmailSignin')
  }
  const sent = () => ctx.redirect(ctx.serviceUrl('/verify-request', { provider: provider.id, type: 'email' }))
  const identifier = emailIdentifier(ctx.param('email'), provider.normalizeIdentifier)
  if (identifier === null) {
    svc.log('info', 'email.refused', 'a sign-in link was refused: the address is not one plain mailbox')
    return failed()
  }
  const hash = addressHash(runtime, identifier)
  // Counted before the app's signIn callback is asked, so that its answers cannot be probed at will.
  if (!(await ipWithinLimit(runtime, ctx.req.ip))) return limited(ctx, runtime, hash, 'ip', sent)
  const user = { id: identifier, email: identifier }
  const account = { provider: provider.id, type: 'email' as const, providerAccountId: identifier }
  const decision = await askSignIn(ctx, { user, account, email: { verificationRequest: true } })
  if (decision.kind === 'deny') return ctx.redirectToError(decision.code)
  if (decision.kind === 'redirect')
    return ctx.redirect(safeCallbackUrl(decision.url, ctx.base, svc.config.redirectOrigins))

  if (!(await addressWithinLimit(runtime, identifier))) return limited(ctx, runtime, hash, 'address', sent)
  return (await mailLink(ctx, runtime, identifier, hash)) ? sent() : failed()
}

/** Issues the link and sends it: whether the answer is the one a sent mail gets. */
async function mailLink(ctx: Context, runtime: EmailRuntime, identifier: string, hash: string): Promise<boolean> {
  const { svc } = ctx
  const { provider } = runtime
  const callbackUrl = await ctx.callbackTarget()
  const token = randomToken(32)
  const expires = Math.floor(Date.now() / 1000) + provider.maxAge
  const key = await keepToken(runtime, token, { identifier, expires })
  const url = `${providerUrls(ctx.base, provider.id).callbackUrl}?${new URLSearchParams({ token, email: identifier, callbackUrl }).toString()}`
  const request = { identifier, url, host: new URL(ctx.base.origin).host, expires: new Date(expires * 1000) }
  const result = await sendSignInMail(
    provider,
    runtime.sendTimes,
    request,
    ctx.messages(),
    undefined,
    ctx.svc.telemetry,
  )
  if (result.kind === 'sent') {
    svc.log('info', 'email.sent', 'a sign-in link was sent', { addressHash: hash })
    return true
  }
  // Unsent, the link is useless anyway: a store that fails to forget it changes nothing for the user.
  await runtime.store.remove(key).catch(() => undefined)
  if (result.kind === 'failed') {
    svc.log('error', 'email.send_failed', `the sign-in mail could not be sent (${result.reason})`, {
      addressHash: hash,
    })
    return false
  }
  await result.likeSent()
  svc.log(
    'warn',
    'email.refused',
    `no sign-in link was sent: the mail server refused the recipient (${result.reason}); answered as for a sent mail`,
    { addressHash: hash, responseCode: result.responseCode },
  )
  return true
}

/**
 * Over a limit the answer is the one a sent mail gets, no sooner (an answer at once would tell that
 * the address was just asked for): nobody learns anything about the address.
 */
async function limited(
  ctx: Context,
  runtime: EmailRuntime,
  hash: string,
  limit: 'ip' | 'address',
  sent: () => void,
): Promise<void> {
  await until(performance.now(), runtime.sendTimes.draw())
  ctx.svc.log('warn', 'email.rate_limited', `no sign-in link was sent: over the ${limit} limit`, {
    addressHash: hash,
    limit,
  })
  sent()
}
