import assert from 'node:assert/strict'
import type { FactorMethods, StoredFactor } from '../features/accounts/store'
import {
  at,
  factorMethods,
  sampleCodeHashes,
  sampleFactor,
  sampleUser,
  userWithAccount,
  type Rules,
} from './account-samples'

/** How many calls race to spend one step or one code: enough to overlap in any store. */
const RACERS = 8

/**
 * A user's second factors (`mfa()`): kept and listed oldest first with their unused codes counted,
 * enabled and removed on the user's own factor alone, a TOTP step and a recovery code each spent
 * once (concurrent calls included), codes replaced, and every factor gone with its user. Each case
 * runs only for a store with the factor methods.
 */
export function describeAccountFactors(rules: Rules): void {
  describeKeepingFactors(rules)
  describeSpending(rules)
  describeFactorRaces(rules)
}

/** A store's factor methods and a fresh user of it, or null for a store without factors. */
async function withUser(store: Rules['store']): Promise<{ factors: FactorMethods; userId: string } | null> {
  const factors = factorMethods(store())
  if (!factors) return null
  const { user } = await userWithAccount(store())
  return { factors, userId: user.id }
}

/** Two fresh users of the store with its factor methods, or null for a store without factors. */
async function twoUsers(store: Rules['store']) {
  const [mine, theirs] = await Promise.all([withUser(store), withUser(store)])
  return mine && theirs && { ...mine, theirs: theirs.userId }
}

/** Adds the factor, asserting that it was added. */
async function add(factors: FactorMethods, factor: StoredFactor, codes?: string[]): Promise<StoredFactor> {
  assert.equal(await factors.addFactor(factor, codes), 'added')
  return factor
}

const find = async (factors: FactorMethods, userId: string, factorId: string) =>
  (await factors.listFactors(userId)).find((factor) => factor.id === factorId)

/** A recovery factor of `userId` (no secret, enabled from the start). */
const recoveryOf = (userId: string, changes: Partial<StoredFactor> = {}) =>
  sampleFactor(userId, { type: 'recovery', secret: '', label: null, enabled: true, ...changes })

/** addFactor, listFactors, enableFactor, removeFactor, and deleteUser's part. */
function describeKeepingFactors({ it, store }: Rules): void {
  it('adds factors and lists them oldest first, times as Dates and unused codes counted', async () => {
    const found = await withUser(store)
    if (!found) return
    const { factors, userId } = found
    const phone = await add(factors, sampleFactor(userId, { createdAt: at(3_000) }), sampleCodeHashes(2))
    const codes = sampleCodeHashes(10)
    const recovery = sampleFactor(userId, { type: 'recovery', secret: '', label: null, enabled: true, codesLeft: 99 })
    await add(factors, { ...recovery, createdAt: at(2_000) }, codes)
    const tablet = await add(factors, sampleFactor(userId, { createdAt: at(4_000), lastUsedAt: at(4_500) }))
    const listed = await factors.listFactors(userId)
    // The codes given to a TOTP factor are not its codes; the codesLeft given is never kept.
    assert.deepEqual(listed, [{ ...recovery, createdAt: at(2_000), codesLeft: 10 }, phone, tablet])
    assert.ok(listed.every((factor) => factor.createdAt instanceof Date))
    assert.ok(listed[2]?.lastUsedAt instanceof Date)
    const other = await withUser(store)
    assert.deepEqual(await factors.listFactors(other?.userId ?? ''), [])
    assert.deepEqual(await factors.listFactors(`user-${Math.random()}`), [])
  })

  it('answers noUser for a factor of a user who does not exist, and keeps nothing', async () => {
    const factors = factorMethods(store())
    if (!factors) return
    const factor = sampleFactor(`user-${Math.random()}`, { type: 'recovery', secret: '' })
    assert.equal(await factors.addFactor(factor, sampleCodeHashes(3)), 'noUser')
    assert.deepEqual(await factors.listFactors(factor.userId), [])
    assert.equal(await store().getUser(factor.userId), null)
  })

  it("enables the user's own factor, and answers false for another user's or a missing one", async () => {
    const mine = await twoUsers(store)
    if (!mine) return
    const { factors } = mine
    const factor = await add(factors, sampleFactor(mine.userId))
    const other = await add(factors, sampleFactor(mine.theirs))
    assert.equal(await factors.enableFactor(mine.theirs, factor.id), false)
    assert.equal(await factors.enableFactor(mine.userId, other.id), false)
    assert.equal(await factors.enableFactor(mine.userId, `factor-${Math.random()}`), false)
    assert.deepEqual(await factors.listFactors(mine.userId), [factor])
    assert.equal(await factors.enableFactor(mine.userId, factor.id), true)
    assert.deepEqual(await factors.listFactors(mine.userId), [{ ...factor, enabled: true }])
    assert.deepEqual(await factors.listFactors(mine.theirs), [other])
  })

  it("removes the user's own factor with its codes and spent step; another user's id removes nothing", async () => {
    const mine = await twoUsers(store)
    if (!mine) return
    const { factors, userId } = mine
    const codes = sampleCodeHashes(3)
    const recovery = await add(factors, recoveryOf(userId), codes)
    const totp = await add(factors, sampleFactor(userId, { createdAt: at(2_000) }))
    assert.equal(await factors.spendTotpStep(userId, totp.id, 500), true)
    assert.equal(await factors.removeFactor(mine.theirs, recovery.id), false)
    assert.equal(await factors.removeFactor(userId, `factor-${Math.random()}`), false)
    assert.equal((await factors.listFactors(userId)).length, 2)
    assert.equal(await factors.removeFactor(userId, recovery.id), true)
    assert.equal(await factors.removeFactor(userId, totp.id), true)
    assert.deepEqual(await factors.listFactors(userId), [])
    assert.equal(await factors.removeFactor(userId, recovery.id), false)
    assert.equal(await factors.spendRecoveryCode(userId, recovery.id, codes[0] ?? ''), false)
    // Added again under its id, a factor starts afresh: no old code, no old step.
    await add(factors, recovery)
    assert.equal(await factors.spendRecoveryCode(userId, recovery.id, codes[0] ?? ''), false)
    assert.equal((await find(factors, userId, recovery.id))?.codesLeft, 0)
    await add(factors, totp)
    assert.equal(await factors.spendTotpStep(userId, totp.id, 10), true)
  })

  it("deletes the user's factors with the user, and a new user under the id has none", async () => {
    const found = await withUser(store)
    if (!found) return
    const { factors, userId } = found
    const codes = sampleCodeHashes(3)
    const recovery = await add(factors, recoveryOf(userId), codes)
    const totp = await add(factors, sampleFactor(userId, { enabled: true }))
    assert.equal(await store().deleteUser(userId), true)
    assert.deepEqual(await factors.listFactors(userId), [])
    assert.equal(await factors.spendRecoveryCode(userId, recovery.id, codes[0] ?? ''), false)
    assert.equal(await factors.spendTotpStep(userId, totp.id, 7), false)
    assert.equal(await factors.enableFactor(userId, totp.id), false)
    assert.equal(await factors.addFactor(sampleFactor(userId)), 'noUser')
    await userWithAccount(store(), sampleUser({ id: userId }))
    assert.deepEqual(await factors.listFactors(userId), [])
  })
}

/** spendTotpStep, spendRecoveryCode and replaceRecoveryCodes, one call at a time. */
function describeSpending({ it, store }: Rules): void {
  it('spends a TOTP step once and then only a greater one, setting lastUsedAt', async () => {
    const mine = await twoUsers(store)
    if (!mine) return
    const { factors, userId } = mine
    const totp = await add(factors, sampleFactor(userId, { enabled: true }))
    const recovery = await add(factors, recoveryOf(userId), sampleCodeHashes(2))
    const before = Date.now()
    assert.equal(await factors.spendTotpStep(userId, totp.id, 56_666_000), true)
    const used = (await find(factors, userId, totp.id))?.lastUsedAt
    assert.ok(used instanceof Date && used.getTime() >= before - 1_000 && used.getTime() <= Date.now() + 1_000)
    assert.equal(await factors.spendTotpStep(userId, totp.id, 56_666_000), false)
    assert.equal(await factors.spendTotpStep(userId, totp.id, 56_665_999), false)
    assert.equal(await factors.spendTotpStep(mine.theirs, totp.id, 56_666_005), false)
    assert.equal(await factors.spendTotpStep(userId, recovery.id, 56_666_005), false)
    assert.equal(await factors.spendTotpStep(userId, `factor-${Math.random()}`, 56_666_005), false)
    for (const odd of [Number.NaN, 1.5, Number.POSITIVE_INFINITY])
      assert.equal(await factors.spendTotpStep(userId, totp.id, odd), false)
    assert.equal(await factors.spendTotpStep(userId, totp.id, 56_666_001), true)
    assert.equal((await find(factors, userId, recovery.id))?.lastUsedAt, null)
  })

  it("spends each recovery code once, counting down, and never another user's or factor's", async () => {
    const mine = await twoUsers(store)
    if (!mine) return
    const { factors, userId } = mine
    const codes = sampleCodeHashes(3)
    const recovery = await add(factors, recoveryOf(userId), codes)
    const second = await add(factors, recoveryOf(userId), sampleCodeHashes(2))
    const totp = await add(factors, sampleFactor(userId), codes)
    const [code = '', ...rest] = codes
    assert.equal(await factors.spendRecoveryCode(mine.theirs, recovery.id, code), false)
    assert.equal(await factors.spendRecoveryCode(userId, second.id, code), false)
    assert.equal(await factors.spendRecoveryCode(userId, totp.id, code), false)
    assert.equal(await factors.spendRecoveryCode(userId, recovery.id, sampleCodeHashes(1)[0] ?? ''), false)
    assert.equal((await find(factors, userId, recovery.id))?.codesLeft, 3)
    const before = Date.now()
    assert.equal(await factors.spendRecoveryCode(userId, recovery.id, code), true)
    const after = await find(factors, userId, recovery.id)
    assert.equal(after?.codesLeft, 2)
    assert.ok(after.lastUsedAt instanceof Date && after.lastUsedAt.getTime() >= before - 1_000)
    assert.equal(await factors.spendRecoveryCode(userId, recovery.id, code), false)
    for (const other of rest) assert.equal(await factors.spendRecoveryCode(userId, recovery.id, other), true)
    assert.equal((await find(factors, userId, recovery.id))?.codesLeft, 0)
    assert.equal((await find(factors, userId, second.id))?.codesLeft, 2)
    assert.equal((await find(factors, userId, second.id))?.lastUsedAt, null)
  })

  it('replaces recovery codes: every old one is void, the new ones count and spend', async () => {
    const mine = await twoUsers(store)
    if (!mine) return
    const { factors, userId } = mine
    const old = sampleCodeHashes(3)
    const recovery = await add(factors, recoveryOf(userId), old)
    const totp = await add(factors, sampleFactor(userId))
    assert.equal(await factors.spendRecoveryCode(userId, recovery.id, old[0] ?? ''), true)
    const fresh = sampleCodeHashes(5)
    assert.equal(await factors.replaceRecoveryCodes(mine.theirs, recovery.id, fresh), false)
    assert.equal(await factors.replaceRecoveryCodes(userId, totp.id, fresh), false)
    assert.equal(await factors.replaceRecoveryCodes(userId, `factor-${Math.random()}`, fresh), false)
    assert.equal((await find(factors, userId, recovery.id))?.codesLeft, 2)
    assert.equal(await factors.replaceRecoveryCodes(userId, recovery.id, fresh), true)
    assert.equal((await find(factors, userId, recovery.id))?.codesLeft, 5)
    for (const code of old) assert.equal(await factors.spendRecoveryCode(userId, recovery.id, code), false)
    assert.equal(await factors.spendRecoveryCode(userId, recovery.id, fresh[4] ?? ''), true)
    assert.equal((await find(factors, userId, recovery.id))?.codesLeft, 4)
  })
}

/** The rules that hold whatever the timing: a step or a code spent once, no factor outliving its user. */
function describeFactorRaces({ it, store }: Rules): void {
  it('lets exactly one of concurrent spends of one TOTP step answer true', async () => {
    const found = await withUser(store)
    if (!found) return
    const { factors, userId } = found
    const totp = await add(factors, sampleFactor(userId, { enabled: true }))
    for (const step of [1_000, 1_001]) {
      const results = await Promise.all(
        Array.from({ length: RACERS }, () => factors.spendTotpStep(userId, totp.id, step)),
      )
      assert.equal(results.filter(Boolean).length, 1)
    }
  })

  it('lets exactly one of concurrent spends of one recovery code answer true', async () => {
    const found = await withUser(store)
    if (!found) return
    const { factors, userId } = found
    const codes = sampleCodeHashes(4)
    const recovery = await add(factors, recoveryOf(userId), codes)
    const results = await Promise.all(
      Array.from({ length: RACERS }, () => factors.spendRecoveryCode(userId, recovery.id, codes[1] ?? '')),
    )
    assert.equal(results.filter(Boolean).length, 1)
    assert.equal((await find(factors, userId, recovery.id))?.codesLeft, 3)
  })

  it('never keeps a factor of a user deleted while it was added', async () => {
    const factors = factorMethods(store())
    if (!factors) return
    const users = await Promise.all(Array.from({ length: RACERS }, () => userWithAccount(store())))
    const results = await Promise.all(
      users.flatMap(({ user }) => [
        factors.addFactor(sampleFactor(user.id, { type: 'recovery', secret: '' }), sampleCodeHashes(2)),
        store().deleteUser(user.id),
      ]),
    )
    assert.ok(results.every((result) => result === 'added' || result === 'noUser' || result === true))
    for (const { user } of users) assert.deepEqual(await factors.listFactors(user.id), [])
  })
}
