import { ConfigurationError } from '../errors'
import { checkKeys, describe, optionalObject } from '../util/options'

/** `requestRateLimit`, resolved: at most `limit` sign-in requests per client IP every `windowSeconds`. */
export interface RequestRateLimit {
  readonly limit: number
  readonly windowSeconds: number
}

/**
 * The defaults leave room for a household or an office behind one address signing in a few times
 * a minute, and stop a script from making the service send mail or call providers without end.
 */
export const DEFAULT_REQUEST_RATE_LIMIT: RequestRateLimit = Object.freeze({ limit: 60, windowSeconds: 60 })

export function resolveRequestRateLimit(value: unknown): RequestRateLimit {
  const options = optionalObject(value, 'requestRateLimit')
  checkKeys(options, ['limit', 'windowSeconds'], 'requestRateLimit.')
  return Object.freeze({
    limit: wholeNumber(options.limit, 'requestRateLimit.limit', DEFAULT_REQUEST_RATE_LIMIT.limit, 1_000_000),
    windowSeconds: wholeNumber(
      options.windowSeconds,
      'requestRateLimit.windowSeconds',
      DEFAULT_REQUEST_RATE_LIMIT.windowSeconds,
      86_400,
    ),
  })
}

function wholeNumber(value: unknown, option: string, fallback: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new ConfigurationError(`\`${option}\` must be a whole number from 1 to ${max}; got ${describe(value)}`)
  }
  return value
}

/** `bodyLimit`: bytes a POST body may have. Default 64 KB. */
export function resolveBodyLimit(value: unknown): number {
  if (value === undefined) return 64 * 1024
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1024) {
    throw new ConfigurationError(`\`bodyLimit\` must be a whole number of bytes, 1024 or more; got ${describe(value)}`)
  }
  return value
}
