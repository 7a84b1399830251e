import type { Log } from '../../infra/logger'
import { isBreached, type BreachedOptions } from './breached'

/**
 * The password rules of NIST SP 800-63B-4 (§3.1.1.2): a length counted in code points after Unicode
 * normalisation (NFKC), at least `minLength` (15 for a password that is the only factor), at most
 * `maxLength` (never truncated); no composition rules (no "a digit and a symbol"); refused when it
 * is among the most common passwords, contains the identifier or the app's name, or is known
 * breached. Every rule that fails is named, so a page can say which.
 */
export type PasswordReason =
  | 'tooShort'
  | 'tooLong'
  | 'common'
  | 'containsIdentifier'
  | 'containsAppName'
  | 'breached'
  /** The breached check could not answer and `onUnavailable` is 'refuse'. */
  | 'unverifiable'

export interface PasswordCheck {
  readonly ok: boolean
  readonly reasons: readonly PasswordReason[]
}

export interface PolicyOptions {
  readonly minLength: number
  readonly maxLength: number
  /** Names no password may contain, each of 4 characters or more. */
  readonly appNames: readonly string[]
  readonly breached: BreachedOptions | null
}

export interface PasswordPolicy {
  readonly minLength: number
  readonly maxLength: number
  /** All the reasons at once; the breached check runs only when the local rules pass. */
  check(password: string, context: { identifier?: string | null }): Promise<PasswordCheck>
}

/** The shortest part of an identifier or name that a password may not contain. */
const MIN_CONTAINED = 4

/** NFKC, as NIST asks before hashing and counting: one password however a keyboard spells it. */
export function normalizePassword(password: string): string {
  return password.normalize('NFKC')
}

/** Length in code points (a character outside the BMP counts once). */
export function codePoints(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}

let common: ReadonlySet<string> | undefined
/** The 49,233 most common passwords of `@zxcvbn-ts/language-common`, lower case, loaded on first use. */
function commonPasswords(): ReadonlySet<string> {
  if (common === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { dictionary } = require('@zxcvbn-ts/language-common') as { dictionary: Record<string, string[]> }
    common = new Set((dictionary['passwords-common'] ?? []).map((entry) => entry.toLowerCase()))
  }
  return common
}

/** The number of entries of the common-password list (the docs and a spec state it). */
export function commonPasswordCount(): number {
  return commonPasswords().size
}

export function passwordPolicy(options: PolicyOptions, log?: Log): PasswordPolicy {
  const appNames = options.appNames.map((name) => name.normalize('NFKC').toLowerCase()).filter(long)
  async function check(password: string, context: { identifier?: string | null }): Promise<PasswordCheck> {
    const text = normalizePassword(password)
    const lower = text.toLowerCase()
    const length = codePoints(text)
    const reasons: PasswordReason[] = []
    if (length < options.minLength) reasons.push('tooShort')
    if (length > options.maxLength) reasons.push('tooLong')
    if (length <= options.maxLength && commonPasswords().has(lower)) reasons.push('common')
    if (identifierParts(context.identifier).some((part) => lower.includes(part))) reasons.push('containsIdentifier')
    if (appNames.some((name) => lower.includes(name))) reasons.push('containsAppName')
    if (reasons.length === 0 && options.breached !== null) {
      const breached = await isBreached(options.breached, text, log)
      if (breached === true) reasons.push('breached')
      if (breached === null && options.breached.onUnavailable === 'refuse') reasons.push('unverifiable')
    }
    return Object.freeze({ ok: reasons.length === 0, reasons: Object.freeze(reasons) })
  }
  return Object.freeze({ minLength: options.minLength, maxLength: options.maxLength, check })
}

/** The identifier, and an address's local part, in lower case: each a string a password may not contain. */
function identifierParts(identifier: string | null | undefined): string[] {
  if (typeof identifier !== 'string') return []
  const whole = identifier.normalize('NFKC').toLowerCase().trim()
  const at = whole.lastIndexOf('@')
  return [whole, ...(at > 0 ? [whole.slice(0, at)] : [])].filter(long)
}

function long(text: string): boolean {
  return codePoints(text) >= MIN_CONTAINED
}
