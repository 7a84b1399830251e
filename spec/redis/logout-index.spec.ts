import type { Redis } from 'ioredis'
import { storeHealth } from '../../lib/store/health'
import {
  MAX_ENTRIES_PER_NAME,
  MAX_USERS_PER_NAME,
  memoryLogoutIndex,
  redisLogoutIndex,
  type LogoutIndex,
} from '../../lib/store/logout-index'
import { redisRunner } from '../../lib/store/redis'
import { sharedRedis, untilReady, type SharedRedis } from '../support/redis'

/**
 * The logout index (what each provider session or subject signed in, for back-channel logout)
 * behaves the same in memory and in Redis: entries are taken once; past the bound, the entry that
 * names more (the user) is kept, so that a logout ends more than it names, never less; and a name
 * taken as ended (a provider session that logged out) remembers nothing more.
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
  beforeEach(() => {
    index = make()
    name = `oidc\0sid\0session-${counter++}`
  })

  it('gives what a name signed in once', async () => {
    expect(await index.remember(name, 's\0one\0alice', DAY, 'u\0alice')).toBe(true)
    expect(await index.remember(name, 's\0two\0alice', DAY, 'u\0alice')).toBe(true)
    expect((await index.take(name)).sort()).toEqual(['s\0one\0alice', 's\0two\0alice'])
    expect(await index.take(name)).toEqual([])
  })

  it('past the bound, keeps the entry that names more, for a bounded number of users', async () => {
    for (let n = 0; n < MAX_ENTRIES_PER_NAME; n++) await index.remember(name, `s\0${n}\0alice`, DAY, 'u\0alice')
    await index.remember(name, 's\0latest\0alice', DAY, 'u\0alice')
    for (let n = 0; n < MAX_USERS_PER_NAME + 5; n++) await index.remember(name, `s\0x\0user-${n}`, DAY, `u\0user-${n}`)
    const taken = await index.take(name)
    expect(taken).not.toContain('s\0latest\0alice')
    expect(taken).toContain('u\0alice')
    expect(taken).toHaveLength(MAX_ENTRIES_PER_NAME + MAX_USERS_PER_NAME)
  })

  it('remembers nothing more under a name taken as ended; a name taken otherwise signs in again', async () => {
    await index.remember(name, 's\0one\0alice', DAY)
    expect(await index.take(name, true)).toEqual(['s\0one\0alice'])
    expect(await index.remember(name, 's\0two\0alice', DAY)).toBe(false)
    expect(await index.take(name, true)).toEqual([])

    const subject = `${name}-sub`
    await index.remember(subject, 'u\0alice', DAY)
    expect(await index.take(subject)).toEqual(['u\0alice'])
    expect(await index.remember(subject, 'u\0alice', DAY)).toBe(true)
    expect(await index.take(subject)).toEqual(['u\0alice'])
  })
})
