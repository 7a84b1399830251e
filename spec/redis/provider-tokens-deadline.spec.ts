import type Redis from 'ioredis'
import type { Express } from 'express'
import { AuthError, oidc, type AuthRouter } from '../../lib'
import { keyRing } from '../../lib/infra/crypto/keys'
import { openTokens, type TokenSet } from '../../lib/features/provider-tokens/token-set'
import { SECRET, serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'
import { sharedRedis, untilReady, type SharedRedis } from '../support/redis'

// A refresh under the Redis lock ends before the lock does, however slow the provider: two
// instances on one Redis (database sessions), an issuer that rotates refresh tokens (a spent one is
// refused) and whose key set answers slowly. A refresh whose new ID token names a key the instance
// has not fetched (so its check fetches the keys, twice on a fresh instance) still writes the new
// tokens before the lock runs out, so a caller waiting on the other instance gets them and the
// refresh token is spent once. And a refreshed ID token for another subject is not kept.
jest.setTimeout(60_000)

const PROVIDER_TIMEOUT = 3000
const ring = keyRing([SECRET], 'provider-tokens')
let redis: SharedRedis
let issuer: HostileIssuer
let prefix: string
const instances: Served[] = []

beforeAll(async () => {
  redis = await sharedRedis()
  issuer = await startHostileIssuer({ refreshTokens: true })
  prefix = redis.prefix('token-deadline')
  for (let i = 0; i < 2; i++) instances.push(await instance())
})

afterEach(() => issuer.reset())

afterAll(async () => {
  for (const served of instances) await served.close()
  await issuer?.stop()
  await redis?.deleteKeys(prefix)
  await redis?.close()
})

/** One instance of the app: its own Redis client, the shared prefix, GET /token answering getAccessToken. */
async function instance(providerTimeout = PROVIDER_TIMEOUT): Promise<Served> {
  const client: Redis = redis.client()
  await untilReady(client)
  const holder: { router?: AuthRouter } = {}
  const served = await serve(
    {
      redis: client,
      redisKeyPrefix: prefix,
      session: { strategy: 'database' },
      providerTimeout,
      providers: [
        oidc({
          id: 'hostile',
          issuer: issuer.issuer,
          clientId: issuer.clientId,
          clientSecret: issuer.clientSecret,
          scope: 'openid email offline_access',
          tokens: true,
        }),
      ],
    },
    {
      setup: (app: Express) =>
        app.get('/token', (req, res) => {
          holder.router!.getAccessToken(req, 'hostile').then(
            (token) => res.status(token ? 200 : 404).json(token ?? {}),
            (error: unknown) =>
              res
                .status(error instanceof AuthError ? error.status : 500)
                .json({ error: error instanceof AuthError ? error.code : String(error) }),
          )
        }),
    },
  )
  holder.router = served.router
  return served
}

/** GET /token at `served` with the browser's cookies (one cookie jar for both: cookies know no port). */
async function token(browser: Browser, served: Served) {
  const res = await browser.jar.fetch(`${served.origin}/token`)
  return { status: res.status, body: (await res.json()) as { accessToken?: string; error?: string } }
}

/** The sets kept in Redis, opened. */
async function storedSets(): Promise<TokenSet[]> {
  const client = redis.client()
  const keys = (await client.keys(`${prefix}tok:*`)).filter((key) => !key.endsWith(':lock'))
  const sealed = await Promise.all(keys.map((key) => client.hget(key, 'v')))
  return sealed.map((value) => openTokens(ring, value)).filter((set): set is TokenSet => set !== null)
}

async function signedIn(): Promise<Browser> {
  const browser = new Browser(instances[0]!)
  const res = await browser.signIn('hostile')
  expect(res.headers.get('location')).toBe(`${instances[0]!.origin}/welcome`)
  return browser
}

it('slow keys for a new ID token of an unknown kid: the refresh is written before the lock ends, and spent once', async () => {
  // Signed in at the first instance (discovery and keys fetched there); the second has fetched nothing.
  const browser = await signedIn()
  const [first, second] = instances as [Served, Served]
  // Each step within providerTimeout; together (token request, keys, keys again) longer than the lock.
  issuer.behave({ refreshDelayMs: 2800, jwksDelayMs: 2800, idTokenHeader: { kid: 'rotated' } })
  const refreshesBefore = issuer.refreshes
  const holder = token(browser, second)
  // The second instance holds the lock; the first waits for its write (or for the lock to run out).
  await new Promise((resolve) => setTimeout(resolve, 300))
  const waiter = token(browser, first)
  const answers = await Promise.all([holder, waiter])
  expect(answers.map((answer) => answer.status)).toEqual([200, 200])
  expect(answers[1].body.accessToken).toBe(answers[0].body.accessToken)
  expect(issuer.refreshes - refreshesBefore).toBe(1)
  const log = second.logs.filter((entry) => entry.event === 'tokens.warning').at(-1)
  expect(log?.message).toMatch(/new ID token was not kept: the issuer keys did not arrive in time/)
  // The sign-in's ID token is kept, the new access token with it.
  const kept = (await storedSets()).find((set) => set.accessToken === answers[0].body.accessToken)
  expect(kept?.idToken).toBe(issuer.idTokens.at(-2))
})

it('a refreshed ID token for another subject is not kept; the new access and refresh tokens are', async () => {
  const browser = await signedIn()
  const signInIdToken = issuer.idTokens.at(-1)!
  issuer.behave({ idTokenClaims: { sub: 'mallory' } })
  const answer = await token(browser, instances[0]!)
  expect(answer.status).toBe(200)
  expect(issuer.idTokens.at(-1)).not.toBe(signInIdToken)
  const kept = (await storedSets()).find((set) => set.accessToken === answer.body.accessToken)
  expect(kept?.idToken).toBe(signInIdToken)
  const logs = instances[0]!.logs.filter((entry) => entry.event === 'tokens.warning')
  expect(logs.at(-1)?.message).toMatch(/new ID token was not kept: it names another subject/)
  expect(JSON.stringify(instances[0]!.logs)).not.toContain(issuer.idTokens.at(-1)!)
})

it('a discovery that took most of the lock: the token request is not sent (ServiceUnavailable), the next call refreshes', async () => {
  // Discovery within providerTimeout (6 s), but then less than providerTimeout + 1 s of the 11 s lock is left.
  const late = await instance(6000)
  instances.push(late)
  const browser = await signedIn()
  issuer.behave({ discoveryDelayMs: 5200 })
  const refreshesBefore = issuer.refreshes
  expect(await token(browser, late)).toEqual({
    status: 503,
    body: { error: 'ServiceUnavailable' },
  })
  expect(issuer.refreshes).toBe(refreshesBefore)
  expect(late.logs.filter((entry) => entry.event === 'tokens.warning').at(-1)?.message).toMatch(
    /too little time was left under the refresh lock/,
  )
  // Discovery done, and the 2 s of a failure for now over: the tokens kept are refreshed.
  await new Promise((resolve) => setTimeout(resolve, 2100))
  expect((await token(browser, late)).status).toBe(200)
  expect(issuer.refreshes).toBe(refreshesBefore + 1)
})
