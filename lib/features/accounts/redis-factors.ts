import { parseJsonObject } from '../../infra/util/json'
import {
  ADD_FACTOR,
  ENABLE_FACTOR,
  LIST_FACTORS,
  REMOVE_FACTOR,
  REPLACE_CODES,
  SPEND_CODE,
  SPEND_STEP,
} from './redis-factor-scripts'
import type { UserSlot } from './redis-user'
import type { FactorMethods, FactorType, StoredFactor } from './store'

/**
 * The second factors of the Redis account store (./redis-store.ts), in the user's `factors` and
 * `codes` hashes (./redis-factor-scripts.ts has the layout). Field names hold factor ids and code
 * hashes, never a secret; key names hold neither. Every write is one script on the user's slot:
 * deleteUser takes the factors with the user, and a write after it finds nothing to write on.
 */
export function redisFactors({ keys, evalOn }: UserSlot): FactorMethods {
  const factorKeys = (userId: string) => {
    const [, , , factors, codes] = keys(userId)
    return [factors, codes] as const
  }
  return Object.freeze({
    async addFactor(factor: StoredFactor, codeHashes: readonly string[] = []) {
      const [user, , , factors, codes] = keys(factor.userId)
      const { record, on, used, step } = fields(factor.id)
      const codeFields =
        factor.type === 'recovery' ? [...new Set(codeHashes)].map((hash) => codeField(factor.id, hash)) : []
      const added = await evalOn(
        [user, factors, codes],
        ADD_FACTOR,
        record,
        on,
        used,
        step,
        recordJson(factor),
        factor.enabled ? '1' : '',
        factor.lastUsedAt?.getTime() ?? '',
        ...codeFields,
      )
      if (added === 0) return 'noUser'
      if (added !== 1) throw new Error('addFactor: the user has a factor with this id already')
      return 'added'
    },
    async listFactors(userId: string) {
      const answer = await evalOn(factorKeys(userId), LIST_FACTORS)
      const [flat, codes] = Array.isArray(answer) ? (answer as unknown[]) : []
      return readFactors(userId, Array.isArray(flat) ? flat : [], Array.isArray(codes) ? codes : [])
    },
    async enableFactor(userId: string, factorId: string) {
      const { record, on } = fields(factorId)
      return (await evalOn(factorKeys(userId).slice(0, 1), ENABLE_FACTOR, record, on)) === 1
    },
    async removeFactor(userId: string, factorId: string) {
      const { record, on, used, step } = fields(factorId)
      return (await evalOn(factorKeys(userId), REMOVE_FACTOR, record, on, used, step, codePrefix(factorId))) === 1
    },
    async spendTotpStep(userId: string, factorId: string, spent: number) {
      if (!Number.isSafeInteger(spent)) return false
      const { record, step, used } = fields(factorId)
      const on = factorKeys(userId).slice(0, 1)
      return (await evalOn(on, SPEND_STEP, record, step, used, String(spent), Date.now())) === 1
    },
    async spendRecoveryCode(userId: string, factorId: string, codeHash: string) {
      const { record, used } = fields(factorId)
      const field = codeField(factorId, codeHash)
      return (await evalOn(factorKeys(userId), SPEND_CODE, record, used, field, Date.now())) === 1
    },
    async replaceRecoveryCodes(userId: string, factorId: string, codeHashes: readonly string[]) {
      const { record } = fields(factorId)
      const codes = [...new Set(codeHashes)].map((hash) => codeField(factorId, hash))
      return (await evalOn(factorKeys(userId), REPLACE_CODES, record, codePrefix(factorId), ...codes)) === 1
    },
  })
}

/** A factor's fields in the `factors` hash; the tag before the colon keeps them apart whatever the id holds. */
const fields = (id: string) => ({ record: `f:${id}`, on: `on:${id}`, used: `used:${id}`, step: `step:${id}` })

/** A code's field in the `codes` hash: JSON keeps the factor id and the hash apart whatever they hold. */
const codeField = (factorId: string, hash: string) => JSON.stringify([factorId, hash])

/** What every code field of the factor starts with (`["<id>",`): no other factor's id escapes to it. */
const codePrefix = (factorId: string) => JSON.stringify([factorId, '']).slice(0, -3)

/** What is written once and never changed: the rest of the factor is in fields of its own. */
function recordJson({ id, userId, type, label, secret, createdAt }: StoredFactor): string {
  return JSON.stringify({ id, userId, type, label, secret, createdAt: createdAt.getTime() })
}

const TYPES: ReadonlySet<unknown> = new Set<FactorType>(['totp', 'recovery'])

/** The user's factors from their hashes' fields, oldest first; what is not ours reads as nothing. */
function readFactors(userId: string, flat: unknown[], codeFields: unknown[]): StoredFactor[] {
  const values = new Map<string, string>()
  for (let index = 0; index + 1 < flat.length; index += 2) {
    const [field, value] = [flat[index], flat[index + 1]]
    if (typeof field === 'string' && typeof value === 'string') values.set(field, value)
  }
  const codesLeft = countCodes(codeFields)
  const found: StoredFactor[] = []
  for (const [field, value] of values) {
    const record = field.startsWith('f:') ? parseRecord(value) : null
    if (!record || field !== `f:${record.id}` || record.userId !== userId) continue
    const used = Number(values.get(`used:${record.id}`) ?? NaN)
    found.push({
      ...record,
      enabled: values.get(`on:${record.id}`) === '1',
      lastUsedAt: Number.isFinite(used) ? new Date(used) : null,
      codesLeft: record.type === 'recovery' ? (codesLeft.get(record.id) ?? 0) : 0,
    })
  }
  return found.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** How many codes each factor has left, by factor id. */
function countCodes(codeFields: unknown[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const field of codeFields) {
    const parsed = typeof field === 'string' ? parseJsonObject(`{"code":${field}}`)?.code : null
    const factorId = Array.isArray(parsed) && typeof parsed[0] === 'string' ? parsed[0] : null
    if (factorId !== null) counts.set(factorId, (counts.get(factorId) ?? 0) + 1)
  }
  return counts
}

type FactorRecord = Pick<StoredFactor, 'id' | 'userId' | 'type' | 'label' | 'secret' | 'createdAt'>

/** A record as recordJson wrote it, or null for anything else. */
function parseRecord(value: string): FactorRecord | null {
  const { id, userId, type, label, secret, createdAt } = parseJsonObject(value) ?? {}
  if (typeof id !== 'string' || typeof userId !== 'string' || !TYPES.has(type) || typeof secret !== 'string')
    return null
  if (!(label === null || typeof label === 'string') || typeof createdAt !== 'number' || !Number.isFinite(createdAt))
    return null
  return { id, userId, type: type as FactorType, label, secret, createdAt: new Date(createdAt) }
}
