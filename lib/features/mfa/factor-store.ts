import { open, seal } from '../../infra/crypto/jwe'
import { matchTotp } from '../../infra/crypto/totp'
import { normalizeRecoveryCode, recoveryCodeHash } from '../../infra/crypto/recovery-codes'
import type { StoredFactor } from '../accounts/store'
import type { FactorInfo } from './types'
import type { MfaRuntime } from './runtime'

/**
 * The user's factors on the accounts store (its optional factor methods, checked at auth()): TOTP
 * secrets sealed under their own key, recovery codes as keyed hashes, a code spent once however
 * many instances race for it (the store's rule).
 */
export async function enabledFactors(runtime: MfaRuntime, userId: string): Promise<StoredFactor[]> {
  const all = await runtime.accounts.call((store) => store.listFactors!(userId))
  return all.filter(({ enabled }) => enabled)
}

/** Whether the user has a passkey, when `mfa.factors` lists the passkey provider (else it is no factor here). */
export async function hasPasskey(runtime: MfaRuntime, userId: string): Promise<boolean> {
  return runtime.passkeyStep !== null && (await runtime.passkeyStep.has(userId))
}

/** The kinds of second factor the user has (`totp`, `recovery`, `passkey`), as `mfa.require` is told them. */
export async function factorKinds(runtime: MfaRuntime, userId: string): Promise<string[]> {
  const kinds = new Set((await enabledFactors(runtime, userId)).map(({ type }) => type as string))
  if (await hasPasskey(runtime, userId)) kinds.add('passkey')
  return [...kinds]
}

export function factorInfo(factor: StoredFactor): FactorInfo {
  return Object.freeze({
    id: factor.id,
    type: factor.type,
    label: factor.label,
    createdAt: factor.createdAt,
    lastUsedAt: factor.lastUsedAt,
    ...(factor.type === 'recovery' ? { codesLeft: factor.codesLeft } : {}),
  })
}

/**
 * A TOTP secret sealed for the store. `owner`: while the factor waits for its first code, who set
 * it up (./who.ts `enrolmentOwner`): only they may see it again or confirm it.
 */
export function sealSecret(runtime: MfaRuntime, secret: string, owner?: string): string {
  return seal(runtime.keys.secret.current, owner === undefined ? { s: secret } : { s: secret, o: owner })
}

export function openSecret(runtime: MfaRuntime, sealed: string): string | null {
  const opened = open(runtime.keys.secret, sealed)
  return typeof opened?.s === 'string' ? opened.s : null
}

/** Who set up a factor still waiting for its first code, or null. */
export function secretOwner(runtime: MfaRuntime, sealed: string): string | null {
  const opened = open(runtime.keys.secret, sealed)
  return typeof opened?.o === 'string' ? opened.o : null
}

/** One of the factors' TOTP codes, spent now; the factor, or null (wrong, replayed, or an earlier step than one spent). */
export async function spendTotp(
  runtime: MfaRuntime,
  userId: string,
  factors: readonly StoredFactor[],
  code: string,
): Promise<StoredFactor | null> {
  for (const factor of factors) {
    if (factor.type !== 'totp') continue
    const secret = openSecret(runtime, factor.secret)
    const step = secret === null ? null : matchTotp(secret, code, Date.now())
    if (step === null) continue
    if (await runtime.accounts.call((store) => store.spendTotpStep!(userId, factor.id, step))) return factor
  }
  return null
}

/** One of the user's recovery codes, spent now: the factor as it is after (codesLeft), or null. */
export async function spendRecovery(
  runtime: MfaRuntime,
  userId: string,
  factors: readonly StoredFactor[],
  code: string,
): Promise<StoredFactor | null> {
  const normalized = normalizeRecoveryCode(code)
  if (normalized === null) return null
  for (const factor of factors) {
    if (factor.type !== 'recovery') continue
    // Every key of the ring: codes made before a secret rotation still work.
    for (const key of runtime.keys.recovery.all) {
      const hash = recoveryCodeHash(key, normalized)
      if (await runtime.accounts.call((store) => store.spendRecoveryCode!(userId, factor.id, hash))) {
        const after = (await runtime.accounts.call((store) => store.listFactors!(userId))).find(
          ({ id }) => id === factor.id,
        )
        return after ?? factor
      }
    }
  }
  return null
}

/** Hashes of new codes, under the current key. */
export function hashCodes(runtime: MfaRuntime, codes: readonly string[]): string[] {
  return codes.map((code) => recoveryCodeHash(runtime.keys.recovery.current, normalizeRecoveryCode(code)!))
}
