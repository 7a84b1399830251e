import type { ResolvedConfig } from '../../infra/config'
import { ConfigurationError } from '../../infra/errors'
import type { MfaOptions, MfaRequireInfo, RecoveryFactor, TotpFactor } from './types'

/** `mfa` resolved: null when the option is absent (then no sign-in is held). */
export interface ResolvedMfa {
  readonly totp: TotpFactor | null
  readonly recovery: RecoveryFactor | null
  /** The id of the passkey provider listed as a factor, or null. */
  readonly passkey: string | null
  readonly require: 'enrolled' | 'always' | ((info: MfaRequireInfo) => boolean | Promise<boolean>)
}

const KEYS = new Set(['factors', 'require'])
const FIX = 'list them as `mfa: { factors: [totp(), recoveryCodes()] }`'

/** Reads `mfa`; a mistake throws naming the option and the fix. */
export function resolveMfa(config: ResolvedConfig): ResolvedMfa | null {
  const given = config.featureOptions.mfa as MfaOptions | undefined
  if (given === undefined) return null
  if (typeof given !== 'object' || given === null) throw new ConfigurationError(`\`mfa\` must be an object: ${FIX}`)
  for (const key of Object.keys(given))
    if (!KEYS.has(key)) throw new ConfigurationError(`Unknown option \`mfa.${key}\`. Known options: factors, require.`)
  const { factors, require = 'enrolled' } = given
  if (!Array.isArray(factors) || factors.length === 0)
    throw new ConfigurationError(`\`mfa.factors\` is required: ${FIX}`)
  let totp: TotpFactor | null = null
  let recovery: RecoveryFactor | null = null
  let passkey: string | null = null
  for (const [index, factor] of (factors as unknown[]).entries()) {
    const kind = (factor as { kind?: unknown; type?: unknown } | null)?.kind
    const type = (factor as { type?: unknown } | null)?.type
    if (kind === 'totp' && totp === null) totp = factor as TotpFactor
    else if (kind === 'recovery' && recovery === null) recovery = factor as RecoveryFactor
    else if (type === 'webauthn' && passkey === null) {
      const id = (factor as { id: string }).id
      if (!config.providers.some((provider) => provider.id === id))
        throw new ConfigurationError(
          `\`mfa.factors[${index}]\` is a passkey provider that \`providers\` does not list; add it there too`,
        )
      passkey = id
    } else
      throw new ConfigurationError(
        `\`mfa.factors[${index}]\` must be totp(), recoveryCodes() or your passkey() provider, each once`,
      )
  }
  if (totp === null && passkey === null)
    throw new ConfigurationError(
      '`mfa.factors` needs totp() or a passkey provider: recovery codes alone are no second factor, only its spare',
    )
  if (require !== 'enrolled' && require !== 'always' && typeof require !== 'function')
    throw new ConfigurationError(
      "`mfa.require` must be 'enrolled', 'always' or a function of { userId, provider, amr, factors }",
    )
  return Object.freeze({ totp, recovery, passkey, require })
}
