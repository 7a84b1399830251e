import type { Context } from '../../core/context'
import { formActionOrigins } from '../../core/sign-in/form-action'
import { renderPage } from '../../infra/http/page-response'
import { sendRedirect } from '../../infra/http/reply'
import { MAX_ADDRESS_LENGTH, normalizeAddress } from './address'
import { spendToken, type EmailRuntime } from './runtime'
import { MAX_CALLBACK_URL_LENGTH } from '../../infra/urls/callback-url'
import { providerUrls } from '../../infra/urls/provider-urls'
import { completeSignIn } from '../../core/sign-in/complete'

/** The link's three values, as strings of a sane length (anything else counts as absent). */
function linkValues(ctx: Context): { token: string; email: string; callbackUrl: string } {
  const value = (name: string, max: number) => {
    const text = ctx.param(name)
    return text !== null && text.length <= max ? text : ''
  }
  return {
    token: value('token', 128),
    email: value('email', MAX_ADDRESS_LENGTH),
    callbackUrl: value('callbackUrl', MAX_CALLBACK_URL_LENGTH),
  }
}

/**
 * GET /callback/email, the link in the mail. Mail scanners open every link, so by default it
 * spends nothing: it shows a page whose button posts the link's values with a CSRF token (the page
 * sets the CSRF cookie, so the link works in any browser). With `confirm: false`, it spends the link.
 */
export async function showEmailLink(ctx: Context, runtime: EmailRuntime): Promise<void> {
  if (!runtime.provider.confirm) return spendEmailLink(ctx, runtime)
  const values = linkValues(ctx)
  // The page names the address: only one the service could have sent a link to, never free text.
  if (!values.token || normalizeAddress(values.email) !== values.email) return refuse(ctx)
  renderPage(
    ctx.res,
    200,
    'email-confirm',
    {
      base: ctx.base.href,
      action: providerUrls(ctx.base, runtime.provider.id).callbackUrl,
      ...values,
      csrfToken: ctx.csrfToken(),
    },
    { formAction: await formActionOrigins(ctx, 'other'), messages: ctx.messages(), theme: ctx.svc.config.theme },
  )
}

function refuse(ctx: Context): void {
  ctx.svc.log(
    'warn',
    'email.verification_failed',
    'an e-mail link was refused: unknown, expired, already used, or for another address',
  )
  ctx.redirectToError('Verification')
}

/**
 * POST /callback/email, the confirm page's button. Without a valid CSRF token nothing is spent and
 * the browser goes back to the link (a page elsewhere cannot spend a link for the user).
 */
export async function confirmEmailLink(ctx: Context, runtime: EmailRuntime): Promise<void> {
  const { svc } = ctx
  if (!svc.csrf.verify(ctx.cookies[ctx.cookieSet.csrfToken.name], ctx.body.csrfToken)) {
    svc.log('warn', 'csrf.invalid', 'an e-mail link was posted without a valid CSRF token; it was not spent', {
      route: 'callback/email',
    })
    const link = new URLSearchParams(linkValues(ctx)).toString()
    return sendRedirect(ctx.res, `${providerUrls(ctx.base, runtime.provider.id).callbackUrl}?${link}`)
  }
  await spendEmailLink(ctx, runtime)
}

/** Spends the link once and signs in; invalid, expired, spent, or for another address: Verification. */
async function spendEmailLink(ctx: Context, runtime: EmailRuntime): Promise<void> {
  const { token, email } = linkValues(ctx)
  const record = token && email ? await spendToken(runtime, token, email) : null
  if (!record) return refuse(ctx)
  const { identifier } = record
  await completeSignIn(ctx, {
    user: { id: identifier, email: identifier, name: null, image: null },
    account: { provider: runtime.provider.id, type: 'email', providerAccountId: identifier },
    // The spent link proves the address.
    identity: { subject: identifier, verifiedEmail: identifier, label: identifier },
    // Checked when the link was made, and all over again here (the app's redirect callback
    // included): the link's query is anyone's to change.
    callbackUrl: await ctx.callbackTarget(),
  })
}
