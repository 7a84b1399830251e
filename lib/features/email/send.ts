import { getSystemErrorName } from 'node:util'
import { renderSignInMail } from '../../infra/pages/email'
import type { Messages } from '../../infra/pages/messages'
import { withDeadline } from '../../infra/util/promise-deadline'
import { NO_TELEMETRY, type Telemetry } from '../../infra/telemetry'
import { until, type SendTimes } from './timing'
import type { EmailProvider, VerificationRequest } from './types'

/**
 * How a send went. `refused`: the mail server refused the recipient (at RCPT TO: no such mailbox,
 * most often), which says something about the address and nothing about the mail system, so it
 * is answered as a sent mail, no sooner (`likeSent`). `failed`: the mail system itself failed
 * (unreachable, no answer in time, authentication, TLS, the sender refused, the server closing).
 * `reason` is what a log may say: a code of the usual shape, never the error's text, which can
 * name the recipient and hold the link.
 */
export type SendResult =
  | { readonly kind: 'sent' }
  | { readonly kind: 'refused'; readonly reason: string; readonly responseCode: number; likeSent(): Promise<void> }
  | { readonly kind: 'failed'; readonly reason: string }

/** A mail's subject and bodies, rendered by the feature that sends it. */
export interface MailContent {
  readonly subject: string
  readonly text: string
  readonly html: string
}

/**
 * Sends the sign-in mail (or another feature's mail, `content`, through the same transport) (through the app's `sendVerificationRequest`, or the provider's transport
 * with the package's templates) within `sendTimeout`; the time of an accepted send is kept in
 * `times`.
 */
export async function sendSignInMail(
  provider: EmailProvider,
  times: SendTimes,
  request: VerificationRequest,
  messages?: Messages,
  content?: MailContent,
  telemetry: Telemetry = NO_TELEMETRY,
): Promise<SendResult> {
  const { sendVerificationRequest, transport } = provider
  const send = async () => {
    if (sendVerificationRequest) return sendVerificationRequest(request)
    if (!transport) throw new Error('the e-mail provider has no transport')
    await transport.sendMail({
      from: provider.from,
      to: request.identifier,
      ...(content ?? renderSignInMail(request.url, request.host, messages)),
    })
  }
  const started = performance.now()
  try {
    // The span names no recipient: the mail's kind is all it says (a sign-up's, whether or not the
    // address had an account).
    const attributes = {
      'auth.mail.kind': request.kind === 'passwordSignUpExists' ? 'passwordSignUp' : (request.kind ?? 'signIn'),
    }
    await telemetry.span('auth.mail.send', attributes, () =>
      withDeadline(send(), provider.sendTimeout, 'sending the sign-in mail'),
    )
    telemetry.add('auth.mail.sent', { 'auth.outcome': 'sent' })
  } catch (error) {
    const reason = sendFailure(error)
    const responseCode = refusedRecipient(error)
    telemetry.add('auth.mail.sent', { 'auth.outcome': responseCode === null ? 'failed' : 'refused' })
    if (responseCode === null) return { kind: 'failed', reason: `${reason} ${where(error, transport)}`.trim() }
    return { kind: 'refused', reason, responseCode, likeSent: () => until(started, times.draw()) }
  }
  times.accepted(performance.now() - started)
  return { kind: 'sent' }
}

/**
 * The reply code when the error is nodemailer's for a recipient the server refused: `EENVELOPE`
 * from the RCPT TO command, the recipient among `rejected`, and a 4xx or 5xx reply (4xx too: a
 * server with soft bounces, or one that cannot verify a recipient yet, says 450 to an unknown
 * one). Not 421, the server closing the connection. Null for anything else; read defensively (the
 * error may come from the app's `sendVerificationRequest`).
 */
function refusedRecipient(error: unknown): number | null {
  try {
    const { code, command, responseCode, rejected } = (error ?? {}) as Record<string, unknown>
    const refused =
      code === 'EENVELOPE' &&
      command === 'RCPT TO' &&
      Array.isArray(rejected) &&
      rejected.length > 0 &&
      typeof responseCode === 'number' &&
      responseCode >= 400 &&
      responseCode < 600 &&
      responseCode !== 421
    return refused ? responseCode : null
  } catch {
    return null
  }
}

/**
 * What the log may say of a failed send. The error's own text can name the recipient and hold the
 * link: only a code of the usual shape (nodemailer's `EENVELOPE`, an SMTP reply code) is kept.
 */
function sendFailure(error: unknown): string {
  try {
    const { code, originalCode, errno, responseCode } = (error ?? {}) as Record<string, unknown>
    const system = typeof errno === 'number' && errno < 0 ? systemErrorName(errno) : originalCode
    const codes = [
      codeOf(code),
      system !== code ? codeOf(system) : '',
      typeof responseCode === 'number' ? String(responseCode) : '',
    ].filter(Boolean)
    const timedOut = error instanceof Error && error.message.includes('no answer within')
    return codes.length > 0 ? codes.join(' ') : timedOut ? 'no answer in time' : 'failed'
  } catch {
    return 'failed'
  }
}

function codeOf(value: unknown): string {
  return typeof value === 'string' && /^[A-Z][A-Z0-9_]{0,31}$/.test(value) ? value : ''
}

function systemErrorName(errno: number): string {
  try {
    return getSystemErrorName(errno)
  } catch {
    return ''
  }
}

/**
 * `at host:port` of the mail server: from the socket's error, else from the transport's options
 * (nodemailer's `transporter.options`). Never its `auth`: the name and address only.
 */
function where(error: unknown, transport?: EmailProvider['transport']): string {
  const fromError = (error ?? {}) as { address?: unknown; port?: unknown }
  const options = ((transport as { options?: unknown } | undefined)?.options ?? {}) as {
    host?: unknown
    port?: unknown
  }
  const host = typeof fromError.address === 'string' ? fromError.address : options.host
  const port = typeof fromError.port === 'number' ? fromError.port : options.port
  if (typeof host !== 'string' || !/^[\w.:[\]-]{1,253}$/.test(host)) return ''
  return `at ${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}${typeof port === 'number' ? `:${port}` : ''}`
}
