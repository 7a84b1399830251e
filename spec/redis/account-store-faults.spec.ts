/**
 * redisAccounts() when Redis fails: every call throws (the feature answers 503) rather than waiting
 * for ever, whether Redis is gone or takes commands and never answers them, and the same store
 * works again once Redis is back.
 */
import type { Redis } from 'ioredis'
import { redisAccounts } from '../../lib/features/accounts/redis-store'
import type { AccountStore } from '../../lib/features/accounts/store'
import { identityOf, sampleAccount, sampleUser, userWithAccount } from '../../lib/testing/account-samples'
import { ownRedisForFile, untilReady } from '../support/redis'

const own = ownRedisForFile()

/** Every method of the store, called once on a user that exists (or did). */
async function everyCall(store: AccountStore, user: { id: string; email: string | null }, accountId: string) {
  const fresh = sampleUser()
  const identity = { provider: 'github', issuer: '', subject: 'x' }
  const calls = [
    store.findAccount(identity),
    store.getUser(user.id),
    store.findUserByVerifiedEmail(user.email ?? ''),
    store.createUser(fresh, sampleAccount(fresh.id)),
    store.linkAccount(sampleAccount(user.id)),
    store.unlinkAccount(user.id, accountId, 1),
    store.listAccounts(user.id),
    store.touchAccount(user.id, accountId, new Date()),
    store.deleteUser(user.id),
  ]
  return Promise.allSettled(calls)
}

/** Works: a sign-up is kept and found. */
async function works(store: AccountStore) {
  const { account } = await userWithAccount(store)
  expect(await store.findAccount(identityOf(account))).toEqual(account)
}

let client: Redis

beforeEach(async () => {
  client = own().client()
  await untilReady(client)
})

it('throws while Redis is away, and works again once it is back', async () => {
  const store = redisAccounts(client)
  const { user, account } = await userWithAccount(store)
  await own().stop()
  const outcomes = await everyCall(store, user, account.id)
  expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(9).fill('rejected'))

  await own().start()
  await untilReady(client)
  await works(store)
})

it('throws, not waits for ever, when Redis takes commands and never answers them, and heals', async () => {
  const store = redisAccounts(client)
  const { user, account } = await userWithAccount(store)
  const admin = own().client()
  await admin.client('PAUSE', 600_000, 'ALL')
  // Our own deadline (ten seconds) ends the calls: the client here has no command timeout.
  const outcomes = await everyCall(store, user, account.id)
  expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(9).fill('rejected'))

  // A paused Redis holds even CLIENT UNPAUSE: it comes back as a new server, and the same store works.
  await own().stop('SIGKILL')
  await own().start()
  await untilReady(client)
  await works(store)
})
