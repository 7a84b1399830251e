import type { Express } from 'express'
import { AuthError, oauth2, type AuthRouter } from '../../lib'
import { keyRing } from '../../lib/infra/crypto/keys'
import { storeHealth } from '../../lib/infra/store/health'
import { redisRunner } from '../../lib/infra/store/redis'
import { redisRefresher, type Exchanged } from '../../lib/features/provider-tokens/refresh-redis'
import { redisVault } from '../../lib/features/provider-tokens/redis-vault'
import { fingerprint, sealTokens, type TokenSet } from '../../lib/features/provider-tokens/token-set'
import { SECRET, serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startHostileTokenEndpoint, type HostileTokenEndpoint } from '../support/hostile-token-endpoint'
import { sharedRedisForFile, untilReady } from '../support/redis'

// The provider's tokens in Redis, two instances (database sessions) against a real token endpoint
// answering the awkward ways providers do: GitHub Apps' empty `scope=` keeps the tokens usable; a set
// kept that no longer opens is RefreshAccessTokenError (and the client session says so), never "no
// tokens"; refreshed tokens living no longer than minValidity make one grant for many calls; a
// refresh the provider got but answered after providerTimeout is not sent again by any instance
// within the hold, nor is one whose answer began and stalled; and the refresh lock is renewed while its holder's refresh runs, so a slow live
// holder is not taken over (which would spend the refresh token twice).
jest.setTimeout(60_000)

const file = sharedRedisForFile('token-endpoint-answers')
let endpoint: HostileTokenEndpoint
const instances: Served[] = []

beforeAll(async () => {
  endpoint = await startHostileTokenEndpoint()
  for (let i = 0; i < 2; i++) instances.push(await instance())
})

afterEach(() => {
  endpoint.refresh = 'ok'
  endpoint.github = false
  endpoint.refreshedLifetime = 10
})

afterAll(async () => {
  for (const served of instances) await served.close()
  await endpoint?.stop()
})

async function instance(): Promise<Served> {
  const client = file.redis.client()
  await untilReady(client)
  const holder: { router?: AuthRouter } = {}
  const served = await serve(
    {
      redis: client,
      redisKeyPrefix: file.prefix,
      session: { strategy: 'database' },
      providerTimeout: 1000,
      providers: [
        oauth2({
          id: 'plain',
          clientId: endpoint.clientId,
          clientSecret: endpoint.clientSecret,
          authorizationUrl: `${endpoint.origin}/authorize`,
          tokenUrl: `${endpoint.origin}/token`,
          profile: () => ({ id: 'alice', name: 'Alice' }),
          tokens: true,
        }),
      ],
    },
    {
      setup: (app: Express) =>
        app.get('/token', (req, res) => {
          holder.router!.getAccessToken(req, 'plain').then(
            (token) => res.status(token ? 200 : 404).json(token ?? {}),
            (error: unknown) =>
              res.status(error instanceof AuthError ? error.status : 500).json({
                error: error instanceof AuthError ? error.code : String(error),
                message: (error as Error).message,
              }),
          )
        }),
    },
  )
  holder.router = served.router
  return served
}

async function token(browser: Browser, served: Served) {
  const res = await browser.jar.fetch(`${served.origin}/token`)
  return {
    status: res.status,
    body: (await res.json()) as { accessToken?: string; scope?: string | null; error?: string; message?: string },
  }
}

async function signedIn(): Promise<Browser> {
  const browser = new Browser(instances[0]!)
  expect((await browser.signIn('plain')).headers.get('location')).toBe(`${instances[0]!.origin}/welcome`)
  return browser
}

const sets = async () => (await file.client.keys(`${file.prefix}tok:*`)).filter((key) => !key.endsWith(':lock'))

it("GitHub Apps' `scope=`: the refreshed set opens at the other instance too", async () => {
  endpoint.github = true
  endpoint.refreshedLifetime = 28_800
  const browser = await signedIn()
  const first = await token(browser, instances[0]!)
  expect(first).toMatchObject({ status: 200, body: { accessToken: endpoint.secrets.at(-2), scope: null } })
  expect(await token(browser, instances[1]!)).toEqual(first)
})

it('a set kept that no longer opens: RefreshAccessTokenError, and the client session says so', async () => {
  const before = new Set(await sets())
  const browser = await signedIn()
  const [key] = (await sets()).filter((k) => !before.has(k))
  await file.client.hset(key!, 'v', 'sealed-under-a-secret-long-gone')
  expect(await token(browser, instances[1]!)).toMatchObject({ status: 401, body: { error: 'RefreshAccessTokenError' } })
  expect(await browser.session()).toHaveProperty('error', 'RefreshAccessTokenError')
})

it('refreshed tokens living no longer than minValidity: one grant for six calls over two instances', async () => {
  endpoint.refreshedLifetime = 20
  const browser = await signedIn()
  const refreshes = endpoint.refreshes
  const answers = []
  for (let call = 0; call < 6; call++) answers.push(await token(browser, instances[call % 2]!))
  expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200))
  expect(new Set(answers.map((a) => a.body.accessToken)).size).toBe(1)
  expect(endpoint.refreshes - refreshes).toBe(1)
})

it('a refresh answered after providerTimeout: no instance sends the refresh token again within the hold', async () => {
  endpoint.refresh = 'late'
  endpoint.lateMs = 1500
  const browser = await signedIn()
  const refreshes = endpoint.refreshes
  expect(await token(browser, instances[0]!)).toMatchObject({ status: 503, body: { error: 'ServiceUnavailable' } })
  await new Promise((resolve) => setTimeout(resolve, 2500))
  endpoint.refresh = 'ok'
  for (const served of instances) {
    const held = await token(browser, served)
    expect(held).toMatchObject({ status: 503, body: { message: expect.stringMatching(/no answer in time/) } })
  }
  expect(endpoint.refreshes - refreshes).toBe(1)
})

// Attack A30-6: headers and half the body, then a stall, was "failed for now" (2 s) and sent again.
it('a refresh whose answer began but stalled past providerTimeout: held as sent with no answer, not sent again', async () => {
  endpoint.refresh = 'stalled'
  const browser = await signedIn()
  const refreshes = endpoint.refreshes
  expect(await token(browser, instances[0]!)).toMatchObject({ status: 503, body: { error: 'ServiceUnavailable' } })
  await new Promise((resolve) => setTimeout(resolve, 2500))
  endpoint.refresh = 'ok'
  for (const served of instances) {
    const held = await token(browser, served)
    expect(held).toMatchObject({ status: 503, body: { message: expect.stringMatching(/no answer in time/) } })
  }
  expect(endpoint.refreshes - refreshes).toBe(1)
})

it('the refresh lock is renewed while a live holder refreshes: a slow refresh is not taken over', async () => {
  const LOCK_MS = 400
  const ring = keyRing([SECRET], 'provider-tokens')
  const clients = [file.redis.client(), file.redis.client()]
  await Promise.all(clients.map((client) => untilReady(client)))
  let exchanges = 0
  // Slower than the lock, as a holder whose answer or write is late (a slow provider, a slow Redis).
  const exchange = async (set: TokenSet): Promise<Exchanged> => {
    exchanges++
    await new Promise((resolve) => setTimeout(resolve, 1.75 * LOCK_MS))
    return { ok: true, set: { provider: 'plain', accessToken: `${set.accessToken}+`, refreshToken: 'rt-next' } }
  }
  const health = storeHealth(() => undefined, 'Redis')
  const vaults = clients.map((client) => redisVault(redisRunner(client, `${file.prefix}renew:`, 2000, health)))
  const [one, two] = vaults.map((vault) => redisRefresher({ vault, ring, lockMs: LOCK_MS, exchange }))
  const first: TokenSet = { provider: 'plain', accessToken: 'at-0', refreshToken: 'rt-0' }
  const ref = await vaults[0]!.keep('user', sealTokens(ring, first), fingerprint(first), 4_000_000_000)
  const holder = one!.successor(ref, fingerprint(first))
  await new Promise((resolve) => setTimeout(resolve, 50))
  const waiter = two!.successor(ref, fingerprint(first))
  const answers = await Promise.all([holder, waiter])
  expect(answers.map((answer) => answer?.set.accessToken)).toEqual(['at-0+', 'at-0+'])
  expect(exchanges).toBe(1)
})
