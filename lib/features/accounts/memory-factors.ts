import type { FactorMethods, StoredFactor } from './store'

/** A factor as memoryAccounts() keeps it: what it gives back, the step it spent last and its unused codes. */
interface Kept {
  factor: StoredFactor
  step: number | null
  codes: Set<string>
}

/**
 * The second factors of memoryAccounts() (./memory-store.ts), by user and then by factor id, in the
 * order they were added. Like the rest of that store, each method does its whole work before it
 * first awaits, so a step or a code is spent once under concurrent calls by construction.
 */
export function memoryFactors(hasUser: (userId: string) => boolean): FactorMethods & {
  /** Forgets a deleted user's factors. */
  readonly forget: (userId: string) => void
} {
  const factors = new Map<string, Map<string, Kept>>()
  const find = (userId: string, factorId: string) => factors.get(userId)?.get(factorId)
  const spend = (kept: Kept) => {
    kept.factor = { ...kept.factor, lastUsedAt: new Date() }
  }
  return {
    async addFactor(factor, codeHashes = []) {
      if (!hasUser(factor.userId)) return 'noUser'
      const own = factors.get(factor.userId) ?? new Map<string, Kept>()
      if (own.has(factor.id)) throw new Error('addFactor: the user has a factor with this id already')
      const codes = new Set(factor.type === 'recovery' ? codeHashes : [])
      own.set(factor.id, { factor: copyFactor(factor, 0), step: null, codes })
      factors.set(factor.userId, own)
      return 'added'
    },
    async listFactors(userId) {
      const own = [...(factors.get(userId)?.values() ?? [])]
      return own
        .map(({ factor, codes }) => copyFactor(factor, codes.size))
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    },
    async enableFactor(userId, factorId) {
      const kept = find(userId, factorId)
      if (kept) kept.factor = { ...kept.factor, enabled: true }
      return kept !== undefined
    },
    async removeFactor(userId, factorId) {
      return factors.get(userId)?.delete(factorId) ?? false
    },
    async spendTotpStep(userId, factorId, step) {
      const kept = find(userId, factorId)
      if (kept?.factor.type !== 'totp' || !Number.isSafeInteger(step)) return false
      if (kept.step !== null && step <= kept.step) return false
      kept.step = step
      spend(kept)
      return true
    },
    async spendRecoveryCode(userId, factorId, codeHash) {
      const kept = find(userId, factorId)
      if (kept?.factor.type !== 'recovery' || !kept.codes.delete(codeHash)) return false
      spend(kept)
      return true
    },
    async replaceRecoveryCodes(userId, factorId, codeHashes) {
      const kept = find(userId, factorId)
      if (kept?.factor.type !== 'recovery') return false
      kept.codes = new Set(codeHashes)
      return true
    },
    forget: (userId) => factors.delete(userId),
  }
}

/** A copy of the factor with `codesLeft`; Dates of its own, so that a caller changing one changes nothing here. */
function copyFactor(factor: StoredFactor, codesLeft: number): StoredFactor {
  const { id, userId, type, label, secret, enabled, createdAt, lastUsedAt } = factor
  return {
    id,
    userId,
    type,
    label,
    secret,
    enabled,
    createdAt: new Date(createdAt.getTime()),
    lastUsedAt: lastUsedAt && new Date(lastUsedAt.getTime()),
    codesLeft,
  }
}
