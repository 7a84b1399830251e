import type { Context } from '../../core/context'
import { renderPasswordMail } from '../../infra/pages/email'
import { sendSignInMail } from '../email/send'
import { until } from '../email/timing'
import type { VerificationRequest } from '../email/types'
import type { PasswordRuntime } from './runtime'

/** Which password mail: the sign-up link, the note that the address has an account, the reset link. */
export type PasswordMail = 'signup' | 'signupExists' | 'reset'

const KINDS: Readonly<Record<PasswordMail, NonNullable<VerificationRequest['kind']>>> = {
  signup: 'passwordSignUp',
  signupExists: 'passwordSignUpExists',
  reset: 'passwordReset',
}

/**
 * Sends a password mail through the e-mail provider (its transport, or the app's
 * `sendVerificationRequest`, which gets `kind`), within its deadline. True when the answer is the
 * one a sent mail gets: sent, or refused by the recipient's server (answered no sooner than a sent
 * mail); false when the mail system failed.
 */
export async function sendPasswordMail(
  ctx: Context,
  runtime: PasswordRuntime,
  kind: PasswordMail,
  to: string,
  url: string,
  expires: Date,
): Promise<boolean> {
  const mail = runtime.mail
  if (mail === null) return false
  const host = new URL(ctx.base.origin).host
  const messages = ctx.messages()
  const request: VerificationRequest = { identifier: to, url, host, expires, kind: KINDS[kind] }
  const content = renderPasswordMail(kind, { url, host }, messages)
  const result = await sendSignInMail(mail.provider, mail.sendTimes, request, messages, content, ctx.svc.telemetry)
  if (result.kind === 'sent') return true
  if (result.kind === 'refused') {
    await result.likeSent()
    ctx.svc.log(
      'warn',
      'email.refused',
      `a password mail was not sent: the mail server refused the recipient (${result.reason})`,
    )
    return true
  }
  ctx.svc.log('error', 'email.send_failed', `a password mail could not be sent (${result.reason})`)
  return false
}

/** Waits as long as a sent mail takes, since `since`: the answer when no mail goes out must not come sooner. */
export async function likeASentMail(runtime: PasswordRuntime, since: number): Promise<void> {
  if (runtime.mail !== null) await until(since, runtime.mail.sendTimes.draw())
}
