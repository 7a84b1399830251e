/**
 * Structured logging. Every entry has a level, a stable event code and a message; the
 * package never puts secrets, tokens, cookies or authorization codes into an entry.
 */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug'

/**
 * The stable event codes of log entries, as the keys of this interface: the core's here, and each
 * feature adds its own by declaration merging (`declare module '…/infra/logger'` in its types.ts),
 * so that a code is declared beside the code that logs it and the union stays one type.
 */
export interface LogEvents {
  'config.warning': true
  'csrf.invalid': true
  'session.invalid': true
  'session.created': true
  'session.reauthenticated': true
  'session.reauth_lost': true
  signout: true
  'redirect.rejected': true
  'request.invalid': true
  'request.cross_site': true
  'request.rate_limited': true
  'callback.error': true
  'event.error': true
  'client.log': true
  'store.unavailable': true
  'store.recovered': true
  'signout.everywhere': true
  'signout.others': true
  'redis.no_error_listener': true
  'audit.failed': true
  'audit.recovered': true
  'audit.dropped': true
}

export type LogEvent = keyof LogEvents

export interface LogEntry {
  level: LogLevel
  event: LogEvent
  message: string
  [field: string]: unknown
}

/**
 * A function given every entry: winston with `(e) => winston.log(e)`, say. A pino logger needs no
 * function: pass it itself (`logger: pino()`), and each entry goes to the method of its level.
 */
export type Logger = (entry: LogEntry) => void

export type Log = (level: LogLevel, event: LogEvent, message: string, fields?: Record<string, unknown>) => void

/**
 * The default: one line on stderr for each warning or error. Parts of a message can come from a
 * request or a provider, so control characters are escaped: no entry can forge another line.
 */
export const defaultLogger: Logger = (entry) => {
  if (entry.level !== 'error' && entry.level !== 'warn') return
  const { level, event, message, ...fields } = entry
  const extra = Object.keys(fields).length > 0 ? ` ${escapeControls(JSON.stringify(fields))}` : ''
  process.stderr.write(`[express-auth-service] ${level} ${event}: ${escapeControls(String(message))}${extra}\n`)
}

// C0 and C1 controls, DEL, the Unicode line and paragraph separators, and the bidirectional
// controls (which can make a line read differently from what it holds).
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069]/g

/**
 * A text from outside (a provider's error, an exception's message) as a log entry may carry it:
 * at most `max` characters, control characters replaced, so that no line break reaches any logger,
 * the app's own included.
 */
export function outsideText(value: string, max = 200): string {
  return value.slice(0, max).replace(CONTROLS, '?')
}

/**
 * What was thrown, as outsideText: an error's message (errors from another realm, such as Node's
 * own in a test runner, included), a thrown string itself, else its type.
 */
export function errorText(error: unknown): string {
  if (typeof error === 'string') return outsideText(error)
  const message = (error as { message?: unknown } | null)?.message
  return typeof message === 'string' ? outsideText(message) : typeof error
}

function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** A logger with pino's methods: `logger.warn({ …fields }, message)` (pino, and bunyan alike). */
export interface LevelLogger {
  error(fields: object, message: string): void
  warn(fields: object, message: string): void
  info(fields: object, message: string): void
  debug(fields: object, message: string): void
}

export function isLevelLogger(value: unknown): value is LevelLogger {
  if (typeof value !== 'object' || value === null) return false
  const methods = value as Record<string, unknown>
  return ['error', 'warn', 'info', 'debug'].every((level) => typeof methods[level] === 'function')
}

/** Each entry to the method of its level, as pino takes it: the fields first, the message last. */
export function levelLogger(target: LevelLogger): Logger {
  return ({ level, message, ...fields }) => target[level](fields, message)
}

export function createLog(logger: Logger | false): Log {
  if (logger === false) return () => {}
  return (level, event, message, fields) => {
    try {
      logger({ ...fields, level, event, message })
    } catch {
      // A broken logger must not break sign-in.
    }
  }
}

/** Whether `text` holds a character the default logger would escape (a line break, say). */
export function hasControls(text: string): boolean {
  return text.search(CONTROLS) !== -1
}

/** How a log entry names a user: `{ userId }`, or what a feature names its own users by (lib/auth.ts). */
export type UserForLog = (userId: string | undefined) => { userId?: string; addressHash?: string }
