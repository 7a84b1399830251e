/**
 * Structured logging. Every entry has a level, a stable event code and a message; the
 * package never puts secrets, tokens, cookies or authorization codes into an entry.
 */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug'

export type LogEvent =
  | 'config.warning'
  | 'csrf.invalid'
  | 'session.invalid'
  | 'session.created'
  | 'session.store_error'
  | 'signout'
  | 'redirect.rejected'
  | 'request.invalid'
  | 'callback.error'
  | 'event.error'
  | 'client.log'

export interface LogEntry {
  level: LogLevel
  event: LogEvent
  message: string
  [field: string]: unknown
}

/** Route entries into pino with `(e) => pino[e.level](e)`, or winston with `(e) => winston.log(e)`. */
export type Logger = (entry: LogEntry) => void

export type Log = (level: LogLevel, event: LogEvent, message: string, fields?: Record<string, unknown>) => void

/** The default: one line on stderr for each warning or error. */
export const defaultLogger: Logger = (entry) => {
  if (entry.level !== 'error' && entry.level !== 'warn') return
  const { level, event, message, ...fields } = entry
  const extra = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : ''
  process.stderr.write(`[express-auth-service] ${level} ${event}: ${message}${extra}\n`)
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
