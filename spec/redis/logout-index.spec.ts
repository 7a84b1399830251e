import type { Redis } from 'ioredis'
import { storeHealth } from '../../lib/infra/store/health'
import {
  MAX_ENTRIES_PER_NAME,
  MAX_USERS_PER_NAME,
  memoryLogoutIndex,
  redisLogoutIndex,
  type LogoutIndex,
} from '../../lib/features/oidc-logout/logout-index'
import { redisRunner } from '../../lib/infra/store/redis'
import { sharedRedis, untilReady, type SharedRedis } from '../support/redis'

/**
 * The logout index (what each provider session or subject signed in, for back-channel logout)
 * behaves the same in memory and in Redis: entries read are kept until they are forgotten (a logout
 * that failed part-way finds them again), then are gone; past the bound, the entry that names more
 * (the user) is kept, so that a logout ends more than it names, never less; a name read as ended (a
 * provider session that logged out) remembers nothing more from that moment, before it is forgotten;
 * and a jti is used only once it was spent.
 */

let redis: SharedRedis
let client: Redis
let prefix: string

beforeAll(async () => {
  redis = await sharedRedis()
  prefix = redis.prefix('logout-index')
  client = redis.client()
  await untilReady(client)
})

afterAll(async () => {
  await redis?.deleteKeys(prefix)
  await redis?.close()
})

let counter = 0
const DAY = 86_400

describe.each([
  ['in memory', () => memoryLogoutIndex()],
  [
    'in Redis',
    () =>
      redisLogoutIndex(
        redisRunner(
          client,
          prefix,
          2000,
          storeHealth(() => undefined, 'Redis'),
        ),
      ),
  ],
])('the logout index %s', (_name, make: () => LogoutIndex) => {
  let index: LogoutIndex
  let name: string
  /** What a logout that succeeds does: reads the entries, (ends them,) forgets them. */
  const take = async (taken: string, ended = false) => {
    const entries = await index.entries(taken, ended)
    await index.forget(taken, entries, ended)
    return entries
  }
  beforeEach(() => {
    index = make()
    name = `oidc\0sid\0session-${counter++}`
  })

  it('gives what a name signed in once', async () => {
    expect(await index.remember(name, 's\0one\0alice', DAY, 'u\0alice')).toBe(true)
    expect(await index.remember(name, 's\0two\0alice', DAY, 'u\0alice')).toBe(true)
    expect((await take(name)).sort()).toEqual(['s\0one\0alice', 's\0two\0alice'])
    expect(await take(name)).toEqual([])
  })

  it('past the bound, keeps the entry that names more, for a bounded number of users', async () => {
    for (let n = 0; n < MAX_ENTRIES_PER_NAME; n++) await index.remember(name, `s\0${n}\0alice`, DAY, 'u\0alice')
    await index.remember(name, 's\0latest\0alice', DAY, 'u\0alice')
    for (let n = 0; n < MAX_USERS_PER_NAME + 5; n++) await index.remember(name, `s\0x\0user-${n}`, DAY, `u\0user-${n}`)
    const taken = await take(name)
    expect(taken).not.toContain('s\0latest\0alice')
    expect(taken).toContain('u\0alice')
    expect(taken).toHaveLength(MAX_ENTRIES_PER_NAME + MAX_USERS_PER_NAME)
  })

  it('remembers nothing more under a name taken as ended; a name taken otherwise signs in again', async () => {
    await index.remember(name, 's\0one\0alice', DAY)
    expect(await take(name, true)).toEqual(['s\0one\0alice'])
    expect(await index.remember(name, 's\0two\0alice', DAY)).toBe(false)
    expect(await take(name, true)).toEqual([])

    const subject = `${name}-sub`
    await index.remember(subject, 'u\0alice', DAY)
    expect(await take(subject)).toEqual(['u\0alice'])
    expect(await index.remember(subject, 'u\0alice', DAY)).toBe(true)
    expect(await take(subject)).toEqual(['u\0alice'])
  })
  it('keeps what it read until forgotten; a name read as ended refuses new entries at once', async () => {
    await index.remember(name, 's\0one\0alice', DAY)
    expect(await index.entries(name, true)).toEqual(['s\0one\0alice'])
    expect(await index.remember(name, 's\0two\0alice', DAY)).toBe(false)
    // The logout failed before it forgot them: the retry finds the same entries.
    expect(await index.entries(name, true)).toEqual(['s\0one\0alice'])
    await index.forget(name, ['s\0one\0alice'], true)
    expect(await index.entries(name, true)).toEqual([])

    const subject = `${name}-sub`
    await index.remember(subject, 'u\0alice', DAY)
    expect(await index.entries(subject)).toEqual(['u\0alice'])
    // Another user remembered meanwhile is not forgotten with the entries that were read.
    await index.remember(subject, 'u\0bob', DAY)
    await index.forget(subject, ['u\0alice'])
    expect(await index.entries(subject)).toEqual(['u\0bob'])
  })

  it('a jti is used only once spent', async () => {
    const jti = `${name}-jti`
    expect(await index.used(jti)).toBe(false)
    expect(await index.used(jti)).toBe(false)
    expect(await index.firstUse(jti, 60)).toBe(true)
    expect(await index.used(jti)).toBe(true)
    expect(await index.firstUse(jti, 60)).toBe(false)
  })
})
