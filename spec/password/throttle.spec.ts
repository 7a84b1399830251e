import type { Cluster, Redis } from 'ioredis'
import {
  memoryThrottle,
  redisThrottle,
  type Throttle,
  type ThrottleOptions,
} from '../../lib/features/password/throttle'
import { storeHealth } from '../../lib/infra/store/health'
import { redisRunner, type RedisClient } from '../../lib/infra/store/redis'
import { restoreClock, setClock, useClock } from '../support/clock'
import { redisCluster, sharedRedisForFile, type TestCluster } from '../support/redis'

/**
 * Password guessing is slowed, never locked out: an account takes `freeFailures` failures, then one
 * attempt per delay (1 s, doubling with each failure, capped by `maxDelay`) after its last failure,
 * and forgets its count `forgetAfter` after it; a client likewise over every account with
 * `clientFreeFailures`. A known device has its own count, so failures elsewhere never slow its owner.
 * The same in memory (bounded however many identifiers a flood makes up) and in Redis, one server
 * and a Cluster, where instances share the counts and Redis's clock decides, not theirs. Delays here
 * are seconds (maxDelay 2), waited for real on Redis and on a faked clock in memory.
 */

const OPTIONS: ThrottleOptions = { freeFailures: 10, maxDelay: 2, clientFreeFailures: 100, forgetAfter: 3 }
const START = 1_800_000_000

/** What a suite needs of a backend: throttles sharing one store, and time passing. */
interface Backend {
  readonly make: (options?: Partial<ThrottleOptions>) => Throttle
  readonly pass: (seconds: number) => Promise<void>
}

const sleep = (seconds: number) => new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000))
let counter = 0
/** Names no other test uses (the Redis backends share their keys between tests). */
const fresh = (kind: string) => `${kind}-${process.pid}-${counter++}`

async function fail(throttle: Throttle, times: number, account: string, client: string, device: string | null = null) {
  for (let i = 0; i < times; i++) {
    expect(await throttle.attempt(account, client, device)).toBe('allowed')
  }
}

/** The behaviour every throttle shares. `waits`: also the tests that wait for delays to end (seconds each on Redis). */
function describeThrottle(name: string, backend: () => Backend, { waits }: { waits: boolean }) {
  const waiting = (title: string, test: () => Promise<void>) => (waits ? it(title, test) : undefined)
  describe(name, () => {
    it('lets an account fail freeFailures times, then slows it from every client, and no other account', async () => {
      const throttle = backend().make()
      const [account, attacker] = [fresh('account'), fresh('client')]
      await fail(throttle, 10, account, attacker)
      expect(await throttle.attempt(account, attacker, null)).toBe('slowed')
      expect(await throttle.attempt(account, fresh('client'), null)).toBe('slowed')
      expect(await throttle.attempt(fresh('account'), attacker, null)).toBe('allowed')
    })

    it('slows a client that failed clientFreeFailures times over many accounts, and no other client', async () => {
      const throttle = backend().make()
      const client = fresh('client')
      for (let i = 0; i < 100; i++) await fail(throttle, 1, fresh('account'), client)
      expect(await throttle.attempt(fresh('account'), client, null)).toBe('slowed')
      expect(await throttle.attempt(fresh('account'), client, fresh('device'))).toBe('slowed')
      expect(await throttle.attempt(fresh('account'), fresh('client'), null)).toBe('allowed')
    })

    it("starts the account's count again on the right password, and takes that attempt back from the client's", async () => {
      const throttle = backend().make({ freeFailures: 3, clientFreeFailures: 5 })
      const [account, client, other] = [fresh('account'), fresh('client'), fresh('client')]
      await fail(throttle, 2, account, client)
      // The third attempt is the right password.
      expect(await throttle.attempt(account, client, null)).toBe('allowed')
      await throttle.succeeded(account, client, null)
      // The account starts again: three free failures.
      await fail(throttle, 3, account, other)
      expect(await throttle.attempt(account, fresh('client'), null)).toBe('slowed')
      // The client keeps its two failures, not the right attempt: three more and it is slowed.
      await fail(throttle, 3, fresh('account'), client)
      expect(await throttle.attempt(fresh('account'), client, null)).toBe('slowed')
    })

    it('counts attempts made at once as they arrive: of 30 at once, freeFailures get through', async () => {
      const throttle = backend().make()
      const account = fresh('account')
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => throttle.attempt(account, fresh('client'), null)),
      )
      expect(answers.filter((answer) => answer === 'allowed')).toHaveLength(10)
      expect(await throttle.attempt(account, fresh('client'), null)).toBe('slowed')
    })

    it('takes back an attempt released unjudged, and counts nothing for a slowed one', async () => {
      const throttle = backend().make({ freeFailures: 3 })
      const [account, client] = [fresh('account'), fresh('client')]
      await fail(throttle, 3, account, client)
      // Slowed attempts, however many, add nothing to wait out.
      for (let i = 0; i < 5; i++) expect(await throttle.attempt(account, client, null)).toBe('slowed')
      await throttle.release(account, client, null)
      expect(await throttle.attempt(account, client, null)).toBe('allowed')
      expect(await throttle.attempt(account, client, null)).toBe('slowed')
    })

    it('starts an account again on a reset', async () => {
      const throttle = backend().make()
      const [account, client] = [fresh('account'), fresh('client')]
      await fail(throttle, 10, account, client)
      expect(await throttle.attempt(account, fresh('client'), null)).toBe('slowed')
      await throttle.reset(account)
      expect(await throttle.attempt(account, fresh('client'), null)).toBe('allowed')
    })

    it('lets the owner in on a known device while the account is slowed by failures elsewhere', async () => {
      const throttle = backend().make()
      const [account, attacker, owner, device] = [fresh('account'), fresh('client'), fresh('client'), fresh('device')]
      // Past its free failures, an attacker goes on trying.
      for (let i = 0; i < 30; i++) await throttle.attempt(account, attacker, null)
      expect(await throttle.attempt(account, owner, null)).toBe('slowed')
      expect(await throttle.attempt(account, owner, device)).toBe('allowed')
      // The device's own count: nine more typos of the owner's are free, the attacker's apart.
      await fail(throttle, 9, account, owner, device)
      expect(await throttle.attempt(account, owner, device)).toBe('slowed')
      // A good sign-in on the device starts both counts again.
      await throttle.succeeded(account, owner, device)
      expect(await throttle.attempt(account, attacker, null)).toBe('allowed')
    })

    it('slows a device on its own failures, which do not count against the account or another device', async () => {
      const throttle = backend().make()
      const [account, owner, device] = [fresh('account'), fresh('client'), fresh('device')]
      await fail(throttle, 10, account, owner, device)
      expect(await throttle.attempt(account, owner, device)).toBe('slowed')
      expect(await throttle.attempt(account, fresh('client'), null)).toBe('allowed')
      expect(await throttle.attempt(account, fresh('client'), fresh('device'))).toBe('allowed')
      // A device id is this account's: the same id on another account is another count.
      expect(await throttle.attempt(fresh('account'), fresh('client'), device)).toBe('allowed')
    })

    waiting('waits 1 s after freeFailures, doubling with each failure, never longer than maxDelay', async () => {
      const { make, pass } = backend()
      const throttle = make()
      const [account, client] = [fresh('account'), fresh('client')]
      await fail(throttle, 10, account, client)
      await pass(0.6)
      expect(await throttle.attempt(account, client, null)).toBe('slowed')
      await pass(0.5)
      expect(await throttle.attempt(account, client, null)).toBe('allowed')
      await pass(1.1)
      expect(await throttle.attempt(account, client, null)).toBe('slowed')
      await pass(1.1)
      expect(await throttle.attempt(account, client, null)).toBe('allowed')
      // 2^2 s, but maxDelay is 2.
      await pass(2.2)
      expect(await throttle.attempt(account, client, null)).toBe('allowed')
    })

    waiting('lets one of many attempts made at once through when a delay ends', async () => {
      const { make, pass } = backend()
      const throttle = make()
      const account = fresh('account')
      await fail(throttle, 10, account, fresh('client'))
      await pass(1.1)
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => throttle.attempt(account, fresh('client'), null)),
      )
      expect(answers.filter((answer) => answer === 'allowed')).toHaveLength(1)
    })

    waiting('forgets the counts forgetAfter after the last failure', async () => {
      const { make, pass } = backend()
      const throttle = make({ clientFreeFailures: 10, forgetAfter: 2 })
      const [account, client] = [fresh('account'), fresh('client')]
      await fail(throttle, 9, account, client)
      await pass(1.6)
      await fail(throttle, 1, account, client)
      // 2.2 s after the first nine: counted from the last failure, all ten are still there.
      await pass(0.6)
      expect(await throttle.attempt(account, fresh('client'), null)).toBe('slowed')
      expect(await throttle.attempt(fresh('account'), client, null)).toBe('slowed')
      await pass(2.1)
      // An eleventh failure would wait 2 s: counted from nothing, it is free.
      expect(await throttle.attempt(account, client, null)).toBe('allowed')
      expect(await throttle.attempt(account, fresh('client'), null)).toBe('allowed')
      expect(await throttle.attempt(fresh('account'), client, null)).toBe('allowed')
    })
  })
}

describe('in memory', () => {
  let now = START
  beforeEach(() => {
    now = START
    useClock(now)
  })
  afterEach(restoreClock)
  describeThrottle(
    'memoryThrottle()',
    () => ({
      make: (options) => memoryThrottle({ ...OPTIONS, ...options }),
      async pass(seconds) {
        now += seconds
        setClock(now)
      },
    }),
    { waits: true },
  )

  it('keeps at most `bound` accounts and `bound` clients however many a flood makes up', async () => {
    const throttle = memoryThrottle(OPTIONS, 1000)
    for (let i = 0; i < 20_000; i++) await throttle.attempt(`account-${i}`, `client-${i}`, i % 2 ? null : `device-${i}`)
    expect(throttle.size).toBe(2000)
  })

  it('still slows an account while fewer than `bound` others fail between its failures', async () => {
    const throttle = memoryThrottle(OPTIONS, 1000)
    let next = 0
    for (let i = 0; i < 10; i++) {
      await throttle.attempt('victim', `client-${next}`, null)
      for (let j = 0; j < 999; j++) await throttle.attempt(`account-${next++}`, `client-${next}`, null)
    }
    expect(await throttle.attempt('victim', 'owner', null)).toBe('slowed')
  })
})

describe('in Redis', () => {
  const single = sharedRedisForFile('throttle')
  const runner = (client: RedisClient, prefix: string) =>
    redisRunner(
      client,
      prefix,
      2000,
      storeHealth(() => undefined, 'Redis'),
    )
  const onOneRedis = (): Backend => ({
    make: (options) => redisThrottle(runner(single.client, single.prefix), { ...OPTIONS, ...options }),
    pass: sleep,
  })
  describeThrottle('redisThrottle() on one Redis', onOneRedis, { waits: true })

  it('acts as one throttle across instances sharing the Redis', async () => {
    const [one, two] = [single.redis.client(), single.redis.client()].map((client: Redis) =>
      redisThrottle(runner(client, single.prefix), OPTIONS),
    ) as [Throttle, Throttle]
    const [account, client] = [fresh('account'), fresh('client')]
    await fail(one, 5, account, client)
    await fail(two, 5, account, client)
    expect(await one.attempt(account, client, null)).toBe('slowed')
    expect(await two.attempt(account, client, null)).toBe('slowed')
    await two.succeeded(account, client, null)
    expect(await one.attempt(account, client, null)).toBe('allowed')
  })

  it("goes by Redis's clock, not the instance's", async () => {
    const throttle = onOneRedis().make()
    const [account, client] = [fresh('account'), fresh('client')]
    try {
      useClock(START)
      await fail(throttle, 10, account, client)
      // An instance whose clock is an hour ahead still sees the delay...
      setClock(START + 3600)
      expect(await throttle.attempt(account, client, null)).toBe('slowed')
      // ...and one whose clock stands still sees it end.
      await sleep(1.1)
      expect(await throttle.attempt(account, client, null)).toBe('allowed')
    } finally {
      restoreClock()
    }
  })

  it('keeps each count under a key of its own, showing no device id, expiring forgetAfter after its last failure', async () => {
    const prefix = single.redis.prefix('throttle-keys')
    const throttle = redisThrottle(runner(single.client, prefix), OPTIONS)
    await throttle.attempt('account-hash', 'client-hash', 'device-id')
    await throttle.attempt('account-hash', 'client-hash', null)
    const keys = (await single.client.keys(`${prefix}*`)).map((key) => key.slice(prefix.length)).sort()
    expect(keys).toEqual(['pw:a:account-hash', 'pw:c:client-hash', expect.stringMatching(/^pw:d:[\w-]{43}$/)])
    for (const key of keys) {
      const ttl = await single.client.pttl(prefix + key)
      expect(ttl).toBeGreaterThan(2000)
      expect(ttl).toBeLessThanOrEqual(3000)
    }
    await single.redis.deleteKeys(prefix)
  })
})

describe('on a Redis Cluster', () => {
  let cluster: TestCluster
  let client: Cluster
  beforeAll(async () => {
    cluster = await redisCluster()
    client = cluster.client()
  }, 60_000)
  afterAll(async () => {
    await cluster?.close()
  })
  // One script a key, so no command spans two slots; the waiting is the single server's to prove.
  describeThrottle(
    'redisThrottle() on a Cluster',
    () => ({
      make: (options) =>
        redisThrottle(
          redisRunner(
            client,
            'throttle:',
            2000,
            storeHealth(() => undefined, 'Redis'),
          ),
          { ...OPTIONS, ...options },
        ),
      pass: sleep,
    }),
    { waits: false },
  )
})
