import { ConfigurationError } from '../../infra/errors'
import { nodemailer } from '../../infra/util/lazy'
import { checkKeys } from '../../infra/util/options'
import { isRecord } from '../../infra/util/object'
import { hasControls } from '../../infra/logger'
import type { EmailProvider, MailTransport, VerificationRequest } from './types'
import type { VerificationStore } from './store'

export interface EmailOptions {
  /** The sender, e.g. `'auth@example.com'` or `'Example <auth@example.com>'`. */
  from: string
  /** An SMTP URL (`smtps://user:pass@smtp.example.com`) or nodemailer's SMTP options. */
  server?: string | Record<string, unknown>
  /** A ready nodemailer transport (anything with `sendMail`), instead of `server`. */
  transport?: MailTransport
  /** Seconds a link lives. Default 600. */
  maxAge?: number
  /** Show a page with a button before the link is spent (mail scanners open every link). Default true. */
  confirm?: boolean
  /** Milliseconds sending may take before it counts as failed. Default 10000. */
  sendTimeout?: number
  /** Mails per address per minute and per hour, and per client IP per hour. Defaults 1, 5, 20. */
  rateLimits?: { addressPerMinute?: number; addressPerHour?: number; ipPerHour?: number }
  /** Sends the mail yourself (the link is in `url`). */
  sendVerificationRequest?: (request: VerificationRequest) => void | Promise<void>
  /**
   * Who an address is: by default the whole address in lower case (one mailbox, one user). Give your
   * own rule only for a mail server that tells `Carol@` from `carol@`; it gets the address in the
   * package's form, and an answer that is not one plain mailbox refuses the sign-in.
   */
  normalizeIdentifier?: (address: string) => string
  /** Where links wait to be used (put, take once atomically, remove). Default: this process's memory. */
  store?: VerificationStore
  name?: string
}

const WHERE = 'providers["email"]'
const KEYS = [
  'from',
  'server',
  'transport',
  'maxAge',
  'confirm',
  'sendTimeout',
  'rateLimits',
  'sendVerificationRequest',
  'normalizeIdentifier',
  'store',
  'name',
]

/** Sign-in with a link sent by e-mail through nodemailer. Its id is always `email`. */
export function email(options: EmailOptions): EmailProvider {
  if (!isRecord(options)) throw new ConfigurationError(`email() takes an options object such as { from, server }`)
  checkKeys(options, KEYS, `${WHERE}.`)
  // The sender is the app's own, but it goes into a header: no line breaks or other controls.
  if (
    typeof options.from !== 'string' ||
    options.from === '' ||
    options.from.length > 320 ||
    hasControls(options.from)
  ) {
    throw new ConfigurationError(
      `\`${WHERE}.from\` must be the sender, such as 'auth@example.com' or 'Example <auth@example.com>'; got ${JSON.stringify(options.from)}`,
    )
  }
  const sendTimeout = whole(options.sendTimeout, 'sendTimeout', 10_000, 'milliseconds')
  return Object.freeze({
    id: 'email',
    name: nameOf(options.name),
    type: 'email' as const,
    protocol: 'email' as const,
    from: options.from,
    transport: transportOf(options, sendTimeout),
    maxAge: whole(options.maxAge, 'maxAge', 600, 'seconds'),
    confirm: flag(options.confirm, 'confirm', true),
    sendTimeout,
    rateLimits: Object.freeze(rateLimitsOf(options.rateLimits)),
    sendVerificationRequest: fn(options.sendVerificationRequest, 'sendVerificationRequest'),
    normalizeIdentifier: fn(options.normalizeIdentifier, 'normalizeIdentifier'),
    store: storeOf(options.store),
  })
}

function transportOf(options: EmailOptions, sendTimeout: number): MailTransport | undefined {
  const { server, transport, sendVerificationRequest } = options
  if ([server, transport, sendVerificationRequest].filter((way) => way !== undefined).length > 1) {
    throw new ConfigurationError(
      `\`${WHERE}\` takes one way to send: \`server\`, \`transport\` or \`sendVerificationRequest\``,
    )
  }
  if (transport !== undefined) {
    if (!isRecord(transport) || typeof transport.sendMail !== 'function') {
      throw new ConfigurationError(`\`${WHERE}.transport\` must be a nodemailer transport (something with sendMail())`)
    }
    return transport
  }
  if (server === undefined) {
    if (options.sendVerificationRequest) return undefined
    throw new ConfigurationError(
      `\`${WHERE}\` needs \`server\` (an SMTP URL such as 'smtp://localhost:25'), \`transport\`, or \`sendVerificationRequest\``,
    )
  }
  if (typeof server === 'string' && !/^smtps?:\/\//i.test(server)) {
    throw new ConfigurationError(`\`${WHERE}.server\` must be an smtp:// or smtps:// URL, or nodemailer's SMTP options`)
  }
  if (typeof server !== 'string' && !isRecord(server))
    throw new ConfigurationError(`\`${WHERE}.server\` must be an SMTP URL or nodemailer's SMTP options`)
  // Built once, here; a server that does not answer in time fails the send (and the connection).
  const timeouts = { connectionTimeout: sendTimeout, greetingTimeout: sendTimeout, socketTimeout: sendTimeout }
  return nodemailer().createTransport(
    typeof server === 'string' ? { url: server, ...timeouts } : { ...timeouts, ...server },
  )
}

function nameOf(value: unknown): string {
  if (value === undefined) return 'Email'
  if (typeof value !== 'string' || value === '')
    throw new ConfigurationError(`\`${WHERE}.name\` must be a non-empty string, such as 'Email'`)
  return value
}

function storeOf(value: unknown): VerificationStore | undefined {
  if (value === undefined) return undefined
  if (!isRecord(value) || !['put', 'take', 'remove'].every((method) => typeof value[method] === 'function')) {
    throw new ConfigurationError(
      `\`${WHERE}.store\` must be a VerificationStore: an object with put(), take() and remove()`,
    )
  }
  return value as unknown as VerificationStore
}

function rateLimitsOf(value: EmailOptions['rateLimits']): EmailProvider['rateLimits'] {
  if (value !== undefined && !isRecord(value))
    throw new ConfigurationError(`\`${WHERE}.rateLimits\` must be an object such as { addressPerHour: 5 }`)
  const limits = value ?? {}
  return {
    addressPerMinute: whole(limits.addressPerMinute, 'rateLimits.addressPerMinute', 1, 'mails'),
    addressPerHour: whole(limits.addressPerHour, 'rateLimits.addressPerHour', 5, 'mails'),
    ipPerHour: whole(limits.ipPerHour, 'rateLimits.ipPerHour', 20, 'mails'),
  }
}

function whole(value: unknown, option: string, fallback: number, unit: string): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ConfigurationError(
      `\`${WHERE}.${option}\` must be a whole number of ${unit}, 1 or more; got ${JSON.stringify(value)}`,
    )
  }
  return value
}

function flag(value: unknown, option: string, fallback: boolean): boolean {
  if (value === undefined) return fallback
  if (typeof value !== 'boolean') throw new ConfigurationError(`\`${WHERE}.${option}\` must be true or false`)
  return value
}

function fn<T>(value: T | undefined, option: string): T | undefined {
  if (value !== undefined && typeof value !== 'function')
    throw new ConfigurationError(`\`${WHERE}.${option}\` must be a function`)
  return value
}
