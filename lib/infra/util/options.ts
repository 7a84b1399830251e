import { ConfigurationError } from '../errors'
import { isRecord } from './object'

/** Option checks whose messages name the option, the bad value and the fix. */

export function describe(value: unknown): string {
  if (typeof value === 'function') return 'a function'
  if (Array.isArray(value)) return 'an array'
  if (value === null) return 'null'
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value)
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  return typeof value
}

/**
 * A key that is not an option, answered with more than a near miss: the option meant (`use`,
 * when there is one) and why (`why`), such as Passport's spelling `clientID` for `clientId`.
 */
export interface KeyHint {
  readonly use?: string
  readonly why: string
}

const NO_HINTS: ReadonlyMap<string, KeyHint> = new Map()

/**
 * Rejects keys that are not known: a key of `hints` gets its hint, any other the nearest known one
 * ("did you mean"), or the list of known options when none is near.
 */
export function checkKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  prefix: string,
  hints: ReadonlyMap<string, KeyHint> = NO_HINTS,
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue
    const hint = hints.get(key)
    const suggestion = hint ? hint.use : nearest(key, known)
    const didYouMean = suggestion === undefined ? '' : ` Did you mean \`${prefix}${suggestion}\`?`
    const rest = hint ? ` ${hint.why}` : suggestion === undefined ? ` Known options: ${known.join(', ')}.` : ''
    throw new ConfigurationError(`Unknown option \`${prefix}${key}\`.${didYouMean}${rest}`)
  }
}

/** A required string that is not empty. `example` shows the fix: `'github'`. */
export function requiredString(value: unknown, option: string, example: string): string {
  if (typeof value !== 'string' || value === '')
    throw new ConfigurationError(`\`${option}\` must be a non-empty string such as ${example}; got ${describe(value)}`)
  return value
}

/** An optional string that, when given, is not empty. */
export function optionalString(value: unknown, option: string, example: string): string | undefined {
  return value === undefined ? undefined : requiredString(value, option, example)
}

export function optionalObject(value: unknown, option: string): Record<string, unknown> {
  if (value === undefined) return {}
  if (!isRecord(value)) throw new ConfigurationError(`\`${option}\` must be an object; got ${describe(value)}`)
  return value
}

export function optionalSeconds(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigurationError(`\`${option}\` must be a positive number of seconds; got ${describe(value)}`)
  }
  return Math.floor(value)
}

export function optionalMilliseconds(value: unknown, option: string, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 600_000) {
    throw new ConfigurationError(
      `\`${option}\` must be a whole number of milliseconds from 1 to 600000; got ${describe(value)}`,
    )
  }
  return value
}

export function optionalFunction(value: unknown, option: string): void {
  if (value !== undefined && typeof value !== 'function') {
    throw new ConfigurationError(`\`${option}\` must be a function; got ${describe(value)}`)
  }
}

export function optionalBoolean(value: unknown, option: string): boolean {
  if (value === undefined) return false
  if (typeof value !== 'boolean')
    throw new ConfigurationError(`\`${option}\` must be true or false; got ${describe(value)}`)
  return value
}

export function checkFunctions(value: Record<string, unknown>, known: readonly string[], prefix: string): void {
  checkKeys(value, known, prefix)
  for (const key of known) optionalFunction(value[key], `${prefix}${key}`)
}

function nearest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = 3
  for (const candidate of known) {
    const distance = candidate.toLowerCase() === key.toLowerCase() ? 0 : editDistance(key, candidate)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
    }
    previous = current
  }
  return previous[b.length]!
}

/** The keys of `value` among `keys`, as given, in a frozen object of their own. */
export function pickKeys(value: object, keys: readonly string[]): Readonly<Record<string, unknown>> {
  const given = value as Record<string, unknown>
  return Object.freeze(
    Object.fromEntries(keys.flatMap((key) => (Object.hasOwn(given, key) ? [[key, given[key]]] : []))),
  )
}
