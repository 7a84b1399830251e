import fc from 'fast-check'
import { keyRing } from '../../lib/infra/crypto/keys'
import { storeHealth } from '../../lib/infra/store/health'
import { redisRunner } from '../../lib/infra/store/redis'
import { redisRefresher, type Exchanged } from '../../lib/features/provider-tokens/refresh-redis'
import { redisVault } from '../../lib/features/provider-tokens/redis-vault'
import { fingerprint, sealTokens, type TokenSet } from '../../lib/features/provider-tokens/token-set'
import { params } from '../fuzz/settings'
import { sharedRedis, untilReady, type SharedRedis } from '../support/redis'

// Random interleavings of getAccessToken's refresh over several instances on one Redis (each its own
// client, vault and refresher), against a provider that rotates refresh tokens and revokes the grant
// when a spent one comes back (reuse detection), with random provider delays and start times, a
// lock holder that dies before its request reaches the provider, and late callers that still hold
// the set from before the rotation. Whatever the interleaving: the grant is never revoked, the
// provider serves one refresh per rotation, every caller gets the one successor (none is lost),
// and no caller fails (none waits past its deadline).
jest.setTimeout(120_000)

const LOCK_MS = 400
const ring = keyRing(['a-test-secret-that-is-long-enough-1234567890'], 'provider-tokens')
let redis: SharedRedis

beforeAll(async () => {
  redis = await sharedRedis()
})

afterAll(async () => {
  await redis?.close()
})

/** The provider: one valid refresh token at a time; a spent one used again revokes the grant. */
function rotatingProvider(delays: () => number) {
  const provider = { refreshToken: 'rt-0', spent: new Set<string>(), served: 0, revoked: false }
  const exchange = async (set: TokenSet): Promise<Exchanged> => {
    await new Promise((resolve) => setTimeout(resolve, delays()))
    const used = set.refreshToken!
    if (provider.revoked || provider.spent.has(used)) {
      provider.revoked = true
      return { ok: false, final: true, reason: 'invalid_grant' }
    }
    if (used !== provider.refreshToken) return { ok: false, final: true, reason: 'invalid_grant' }
    provider.spent.add(used)
    provider.served++
    provider.refreshToken = `rt-${provider.served}`
    const next: TokenSet = {
      provider: 'idp',
      accessToken: `at-${provider.served}`,
      refreshToken: provider.refreshToken,
    }
    return { ok: true, set: next }
  }
  return { provider, exchange }
}

const schedule = fc.record({
  instances: fc.integer({ min: 2, max: 4 }),
  callers: fc.array(fc.record({ instance: fc.nat(3), startMs: fc.integer({ min: 0, max: 150 }) }), {
    minLength: 2,
    maxLength: 12,
  }),
  providerDelays: fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 1, maxLength: 8 }),
  holderDies: fc.boolean(),
  lateCallers: fc.integer({ min: 0, max: 3 }),
})

it('never a revoked grant, never a lost successor, never a failed caller', async () => {
  await fc.assert(
    fc.asyncProperty(schedule, async ({ instances, callers, providerDelays, holderDies, lateCallers }) => {
      const prefix = redis.prefix('interleavings')
      const clients = await Promise.all(
        Array.from({ length: instances }, async () => {
          const client = redis.client()
          await untilReady(client)
          return client
        }),
      )
      try {
        let delay = 0
        const { provider, exchange } = rotatingProvider(() => providerDelays[delay++ % providerDelays.length]!)
        const refreshers = clients.map((client, index) => {
          const vault = redisVault(
            redisRunner(
              client,
              prefix,
              2000,
              storeHealth(() => undefined, 'Redis'),
            ),
          )
          // The dying holder: its process stops before its request reaches the provider (its lock stays).
          const own = holderDies && index === 0 ? () => new Promise<Exchanged>(() => undefined) : exchange
          return { vault, refresher: redisRefresher({ vault, ring, lockMs: LOCK_MS, exchange: own }) }
        })
        const first: TokenSet = { provider: 'idp', accessToken: 'at-0', refreshToken: 'rt-0' }
        const ref = await refreshers[0]!.vault.keep('user', sealTokens(ring, first), fingerprint(first), 4_000_000_000)
        const stale = fingerprint(first)
        const dying = holderDies ? refreshers[0]!.refresher.successor(ref, stale) : null
        void dying?.catch(() => undefined)
        const answers = await Promise.all(
          callers.map(async ({ instance, startMs }) => {
            await new Promise((resolve) => setTimeout(resolve, startMs))
            const index = holderDies ? 1 + (instance % (instances - 1)) : instance % instances
            return refreshers[index]!.refresher.successor(ref, stale)
          }),
        )
        // Late: a request that still holds the set from before the rotation.
        for (let i = 0; i < lateCallers; i++) {
          const index = holderDies ? 1 + (i % (instances - 1)) : i % instances
          answers.push(await refreshers[index]!.refresher.successor(ref, stale))
        }
        expect(provider.revoked).toBe(false)
        expect(provider.served).toBe(1)
        expect(answers.map((answer) => answer?.set.accessToken)).toEqual(answers.map(() => 'at-1'))
        expect(answers.every((answer) => answer && !answer.failed)).toBe(true)
      } finally {
        await Promise.all(clients.map((client) => client.quit().catch(() => undefined)))
        await redis.deleteKeys(prefix)
      }
    }),
    params(0.15),
  )
})

it('a provider failing for now is asked once: every waiting caller gets ServiceUnavailable', async () => {
  const prefix = redis.prefix('interleavings-failing')
  const clients = await Promise.all(
    [0, 1, 2].map(async () => {
      const client = redis.client()
      await untilReady(client)
      return client
    }),
  )
  try {
    let asked = 0
    const failing = async (): Promise<Exchanged> => {
      asked++
      await new Promise((resolve) => setTimeout(resolve, 100))
      return { ok: false, final: false, reason: 'HTTP 503' }
    }
    const refreshers = clients.map((client) => {
      const vault = redisVault(
        redisRunner(
          client,
          prefix,
          2000,
          storeHealth(() => undefined, 'Redis'),
        ),
      )
      return { vault, refresher: redisRefresher({ vault, ring, lockMs: LOCK_MS, exchange: failing }) }
    })
    const first: TokenSet = { provider: 'idp', accessToken: 'at-0', refreshToken: 'rt-0' }
    const ref = await refreshers[0]!.vault.keep('user', sealTokens(ring, first), fingerprint(first), 4_000_000_000)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 9 }, (_, i) => refreshers[i % 3]!.refresher.successor(ref, fingerprint(first))),
    )
    expect(asked).toBe(1)
    expect(
      outcomes.map((outcome) => outcome.status === 'rejected' && (outcome.reason as { code?: string }).code),
    ).toEqual(Array(9).fill('ServiceUnavailable'))
  } finally {
    await Promise.all(clients.map((client) => client.quit().catch(() => undefined)))
    await redis.deleteKeys(prefix)
  }
})
