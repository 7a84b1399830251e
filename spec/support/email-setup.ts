import { randomBytes } from 'node:crypto'
import type { AuthOptions } from '../../lib'
import type { SmtpOptions } from './smtp'
import {
  confirm,
  confirmForm,
  localPart,
  mailedLink,
  newAddress,
  openLink,
  startEmailService,
  type EmailOptions,
  type EmailService,
} from './email-harness'
import { RecordingBrowser, Secrets, type Capture } from './leaks'

/**
 * The e-mail sign-in of ../flows/email-harness (nodemailer over real SMTP to a capturing mail
 * server), with a random service secret (two, as during a rotation) and the capture's logger, and
 * steps that keep what they used in a `Secrets`: the address and its local part, the mailed link
 * and its token, the confirm page's CSRF token.
 */
export interface EmailApp {
  service: EmailService
  /** A new set holding the service's secrets. */
  secrets(): Secrets
  browser(secrets: Secrets): RecordingBrowser
}

export async function startEmailApp(
  capture: Capture,
  options: Partial<EmailOptions> = {},
  auth: AuthOptions = {},
  smtp: SmtpOptions = {},
): Promise<EmailApp> {
  const serviceSecrets = [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')]
  const service = await startEmailService(options, { secret: serviceSecrets, logger: capture.logger, ...auth }, smtp)
  return {
    service,
    secrets: () => new Secrets().add('service secret', serviceSecrets[0]).add('service secret', serviceSecrets[1]),
    browser: (secrets) => new RecordingBrowser(service, secrets),
  }
}

/** A new address, its local part kept as a secret (the whole address too). */
export function addressIn(secrets: Secrets, domain?: string): string {
  const address = newAddress(domain)
  secrets.add('e-mail address', address).add('e-mail local part', localPart(address))
  return address
}

/** Asks for a link for `address` (which must be sent), keeping the link and its token. */
export async function linkFor(app: EmailApp, browser: RecordingBrowser, secrets: Secrets, address: string) {
  const link = await mailedLink(app.service, browser, address)
  secrets.add('sign-in link', link.href).add('e-mail token', link.searchParams.get('token'))
  return link
}

/** Opens the link and presses the confirm page's button, keeping the page's CSRF token. */
export async function confirmLink(
  app: EmailApp,
  browser: RecordingBrowser,
  secrets: Secrets,
  link: URL,
  fields: Record<string, string> = {},
): Promise<Response> {
  const form = confirmForm(await openLink(app.service, browser, link))
  secrets.add('CSRF token', form.fields.csrfToken)
  return confirm(app.service, browser, { ...form.fields, ...fields })
}

export const SIGNED_IN = [
  'service secret',
  'e-mail address',
  'e-mail local part',
  'sign-in link',
  'e-mail token',
  'CSRF token',
  'cookie auth.csrf-token',
  'cookie auth.session-token',
]
