/**
 * The Redis account store's steps cross hash slots, so a process can die between two of them. For
 * every point at which each write can stop (before a command is sent, or after it ran but before
 * its answer came), what is left behind, read by a healthy store, is one whole state or the other:
 * nobody signs in to a user that is gone, an identity or a verified address is never locked out,
 * and a way in that does not sign in is never counted as one.
 */
import { redisAccountStore } from '../../lib/features/accounts/redis-store'
import type { AccountStore, IdentityKey, StoredAccount, User } from '../../lib/features/accounts/store'
import { storeHealth } from '../../lib/infra/store/health'
import { redisRunner, type RedisRunner } from '../../lib/infra/store/redis'
import { identityOf, sampleAccount, sampleUser } from '../../lib/testing/account-samples'
import { sharedRedisForFile } from '../support/redis'

const file = sharedRedisForFile('account-crashes')
let runner: RedisRunner
let healthy: AccountStore

beforeAll(() => {
  runner = redisRunner(
    file.client,
    file.prefix,
    5000,
    storeHealth(() => undefined, 'Redis'),
  )
  healthy = redisAccountStore(runner)
})

/** A store whose process dies at its (k+1)th command: before sending it, or after it ran. */
function dyingAt(k: number, when: 'before' | 'after'): AccountStore {
  let sent = 0
  return redisAccountStore({
    client: runner.client,
    key: (...parts) => runner.key(...parts),
    async run(command) {
      if (sent++ < k) return runner.run(command)
      if (when === 'after') await runner.run(command)
      throw new Error('the process died')
    },
  })
}

/** How many commands `work` sends when nothing fails. */
async function commandsOf(work: (store: AccountStore) => Promise<unknown>): Promise<number> {
  let sent = 0
  await work(
    redisAccountStore({
      client: runner.client,
      key: (...parts) => runner.key(...parts),
      run: (command) => (sent++, runner.run(command)),
    }),
  )
  return sent
}

/** Runs `scenario` with a death at every command of `work`, both ways. */
async function atEveryStep(
  work: (store: AccountStore) => Promise<unknown>,
  scenario: (die: AccountStore) => Promise<void>,
): Promise<number> {
  const steps = await commandsOf(work)
  for (let k = 0; k < steps; k++) for (const when of ['before', 'after'] as const) await scenario(dyingAt(k, when))
  return steps
}

async function userWith(accounts: number, changes: Partial<User> = {}) {
  const user = sampleUser(changes)
  const first = sampleAccount(user.id)
  await healthy.createUser(user, first)
  const more: StoredAccount[] = []
  for (let i = 1; i < accounts; i++)
    more.push(sampleAccount(user.id, { linkedAt: new Date(first.linkedAt.getTime() + i) }))
  for (const account of more) await healthy.linkAccount(account)
  return { user, accounts: [first, ...more] }
}

/** A new user with a new account (of `identity` when given). */
function signUp(store: AccountStore, identity?: IdentityKey) {
  const user = sampleUser()
  return store.createUser(user, sampleAccount(user.id, identity))
}

/** Another user can sign up with this identity and this address: neither was locked out. */
async function freeToSignUp(account: StoredAccount, email: string | null) {
  const again = sampleUser({ email })
  expect((await healthy.createUser(again, sampleAccount(again.id, identityOf(account)))).kind).toBe('created')
}

it('a sign-up that dies leaves a user who signs in, or an identity and address free to sign up again', async () => {
  const steps = await atEveryStep(
    (store) => signUp(store),
    async (die) => {
      const user = sampleUser()
      const account = sampleAccount(user.id)
      await expect(die.createUser(user, account)).rejects.toThrow('the process died')
      const found = await healthy.findAccount(identityOf(account))
      if (found) {
        expect(found).toEqual(account)
        expect(await healthy.getUser(user.id)).toEqual(user)
        expect(await healthy.listAccounts(user.id)).toEqual([account])
        expect([user, null]).toContainEqual(await healthy.findUserByVerifiedEmail(user.email!))
      } else {
        expect(await healthy.findUserByVerifiedEmail(user.email!)).toBeNull()
        await freeToSignUp(account, user.email)
      }
    },
  )
  expect(steps).toBeGreaterThan(3)
})

it('a refused sign-up that dies while undoing leaves its user with no way in', async () => {
  const { accounts } = await userWith(1)
  const identity = identityOf(accounts[0]!)
  await atEveryStep(
    (store) => signUp(store, identity),
    async (die) => {
      const loser = sampleUser()
      await die.createUser(loser, sampleAccount(loser.id, identity)).catch(() => undefined)
      expect(await healthy.findAccount(identity)).toEqual(accounts[0])
      expect(await healthy.listAccounts(loser.id)).toEqual([])
      expect(await healthy.findUserByVerifiedEmail(loser.email!)).toBeNull()
    },
  )
})

it('a link that dies leaves the account found and listed, or neither and the identity free', async () => {
  await atEveryStep(
    async (store) => store.linkAccount(sampleAccount((await userWith(1)).user.id)),
    async (die) => {
      const { user, accounts } = await userWith(1)
      const account = sampleAccount(user.id, { linkedAt: new Date(accounts[0]!.linkedAt.getTime() + 1) })
      await expect(die.linkAccount(account)).rejects.toThrow('the process died')
      const found = await healthy.findAccount(identityOf(account))
      if (found) {
        expect(found).toEqual(account)
        expect(await healthy.listAccounts(user.id)).toEqual([accounts[0], account])
      } else {
        expect(await healthy.listAccounts(user.id)).toEqual(accounts)
        expect(await healthy.unlinkAccount(user.id, accounts[0]!.id, 0)).toBe('last')
        await freeToSignUp(account, null)
      }
    },
  )
})

it('an unlink that dies leaves the account found and listed, or neither', async () => {
  await atEveryStep(
    async (store) => {
      const { user, accounts } = await userWith(2)
      return store.unlinkAccount(user.id, accounts[1]!.id, 0)
    },
    async (die) => {
      const { user, accounts } = await userWith(2)
      await expect(die.unlinkAccount(user.id, accounts[1]!.id, 0)).rejects.toThrow('the process died')
      const found = await healthy.findAccount(identityOf(accounts[1]!))
      expect(await healthy.listAccounts(user.id)).toEqual(found ? accounts : [accounts[0]])
      if (!found) await freeToSignUp(accounts[1]!, null)
    },
  )
})

it('a deletion that dies leaves the user whole, or its identities and address free', async () => {
  await atEveryStep(
    async (store) => store.deleteUser((await userWith(2)).user.id),
    async (die) => {
      const { user, accounts } = await userWith(2)
      await expect(die.deleteUser(user.id)).rejects.toThrow('the process died')
      if (await healthy.getUser(user.id)) {
        expect(await healthy.listAccounts(user.id)).toEqual(accounts)
        for (const account of accounts) expect(await healthy.findAccount(identityOf(account))).toEqual(account)
        expect(await healthy.findUserByVerifiedEmail(user.email!)).toEqual(user)
      } else {
        for (const account of accounts) expect(await healthy.findAccount(identityOf(account))).toBeNull()
        expect(await healthy.findUserByVerifiedEmail(user.email!)).toBeNull()
        await freeToSignUp(accounts[0]!, user.email)
        await freeToSignUp(accounts[1]!, null)
      }
    },
  )
})
