import type * as LanguageCommon from '@zxcvbn-ts/language-common'
import type { Log } from '../../infra/logger'
import { load } from '../../infra/util/lazy'
import { breachedCheck, type BreachedOptions } from './breached'

// What a new password must be, after NIST SP 800-63B-4 (§3.1.1.2): long enough and not too long,
// counted in code points after NFKC normalisation, never truncated; no composition rules (a
// digit, a capital, a symbol); not on a list of common passwords, not made of the context (the
// identifier, the service's name), and not known from breaches. Nothing else: length is what
// makes a password hard to guess, and rules of composition only make it hard to remember.

export type PasswordReason =
  'tooShort' | 'tooLong' | 'common' | 'containsIdentifier' | 'containsAppName' | 'breached' | 'unverifiable'

export interface PolicyOptions {
  readonly minLength: number
  readonly maxLength: number
  readonly appNames: readonly string[]
  readonly breached: BreachedOptions | null
}

export interface PasswordCheck {
  readonly ok: boolean
  readonly reasons: readonly PasswordReason[]
}

export interface PasswordPolicy {
  readonly minLength: number
  readonly maxLength: number
  /** All reasons at once (the page lists each rule that failed); the breached check only when the local rules pass. */
  check(password: string, context: { identifier?: string | null }): Promise<PasswordCheck>
}

/**
 * Context words shorter than this are not looked for: a password would contain a name of two or
 * three letters by chance too often (and a short address's local part says little).
 */
const MIN_WORD = 4

/** NFKC, then counted in code points; never truncated. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC')
}

export function codePoints(text: string): number {
  let count = 0
  // A string's iterator walks code points: a surrogate pair (an emoji) is one.
  for (const _ of text) count++
  return count
}

/** How two texts are compared: NFKC, then lower case (locale-independent). */
const fold = (text: string): string => normalizePassword(text).toLowerCase()

// The common-password list as a set, built on the first check and kept for the process: the same
// 49,233 entries for every auth() in it, about 3.5 MB of heap with the module that holds them and
// 30 ms to build (measured; a check then takes some 5 µs), which an app without password() never pays.
let common: ReadonlySet<string> | undefined

function isCommon(folded: string): boolean {
  common ??= new Set(
    (load('@zxcvbn-ts/language-common') as typeof LanguageCommon).dictionary['passwords-common'].map(fold),
  )
  return common.has(folded)
}

export function passwordPolicy(options: PolicyOptions, log: Log = () => {}): PasswordPolicy {
  const { minLength, maxLength } = options
  const appNames = options.appNames.map(fold).filter((name) => codePoints(name) >= MIN_WORD)
  const breached = options.breached && breachedCheck(options.breached, log)
  return Object.freeze({
    minLength,
    maxLength,
    async check(password: string, context: { identifier?: string | null }): Promise<PasswordCheck> {
      const normalized = normalizePassword(password)
      const folded = normalized.toLowerCase()
      const length = codePoints(normalized)
      const reasons: PasswordReason[] = []
      if (length < minLength) reasons.push('tooShort')
      if (length > maxLength) reasons.push('tooLong')
      if (isCommon(folded)) reasons.push('common')
      if (identifierWords(context.identifier).some((word) => folded.includes(word))) reasons.push('containsIdentifier')
      if (appNames.some((name) => folded.includes(name))) reasons.push('containsAppName')
      if (reasons.length === 0 && breached) {
        const verdict = await breached(normalized)
        if (verdict) reasons.push(verdict)
      }
      return Object.freeze({ ok: reasons.length === 0, reasons: Object.freeze(reasons) })
    },
  })
}

/** The identifier, and an address's local part, as compared: those of MIN_WORD code points or more. */
function identifierWords(identifier: string | null | undefined): string[] {
  if (!identifier) return []
  const whole = fold(identifier)
  const at = whole.lastIndexOf('@')
  const words = at > 0 ? [whole, whole.slice(0, at)] : [whole]
  return words.filter((word) => codePoints(word) >= MIN_WORD)
}
