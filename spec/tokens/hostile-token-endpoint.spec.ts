import type { Express } from 'express'
import { AuthError, oauth2, type AuthRouter } from '../../lib'
import { serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import {
  startHostileTokenEndpoint,
  type HostileTokenEndpoint,
  type RefreshBehaviour,
} from '../support/hostile-token-endpoint'

// A token endpoint that is slow, answers too much, answers broken JSON, or quotes the request
// (refresh token and client secret) in its error: getAccessToken answers ServiceUnavailable within
// providerTimeout, the stored tokens stay as they were (the next refresh works), the session is not
// marked failed, and no log entry holds a token, the client secret or the provider's words. At
// sign-in, a token too large to keep (over 16 KB, as for a refresh) is the provider's error.
jest.setTimeout(60_000)

let endpoint: HostileTokenEndpoint
let served: Served

beforeAll(async () => {
  endpoint = await startHostileTokenEndpoint()
  const holder: { router?: AuthRouter } = {}
  served = await serve(
    {
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
            (token) => res.json(token),
            (error: unknown) =>
              res.status(500).json({
                error: error instanceof AuthError ? error.code : String(error),
                message: (error as Error).message,
              }),
          )
        }),
    },
  )
  holder.router = served.router
})

afterAll(async () => {
  await served?.close()
  await endpoint?.stop()
})

const token = async (browser: Browser) => {
  const res = await browser.jar.fetch(`${served.origin}/token`)
  return (await res.json()) as { accessToken?: string; error?: string; message?: string }
}

it.each<RefreshBehaviour>(['slow', 'huge', 'malformed', 'quote-request'])(
  'a token endpoint answering %s changes nothing and logs no secret',
  async (behaviour) => {
    const browser = new Browser(served)
    expect((await browser.signIn('plain')).headers.get('location')).toBe(`${served.origin}/welcome`)
    const logged = served.logs.length
    endpoint.refresh = behaviour
    const failed = await token(browser)
    expect(failed).toEqual({ error: 'ServiceUnavailable', message: expect.any(String) })
    expect(await browser.session()).not.toHaveProperty('error')
    expect(served.logs.slice(logged).map((entry) => entry.event)).toContain('tokens.warning')
    const entries = JSON.stringify([served.logs.slice(logged), failed.message])
    for (const secret of [...endpoint.secrets, endpoint.clientSecret, 'you sent']) expect(entries).not.toContain(secret)
    endpoint.refresh = 'ok'
    const refreshes = endpoint.refreshes
    const again = await token(browser)
    if (behaviour === 'slow') {
      // Sent, and no answer: the provider may have spent the refresh token, so it is not sent again
      // at once (lib/features/provider-tokens/refresh-redis.ts UNCERTAIN_MS), even with the provider back to normal.
      expect(again).toEqual({ error: 'ServiceUnavailable', message: expect.stringMatching(/no answer in time/) })
      expect(endpoint.refreshes).toBe(refreshes)
      return
    }
    // The tokens kept are still the ones to refresh: the provider back to normal, it works.
    expect(again.accessToken).toBe(endpoint.secrets.at(-2))
  },
)

it('invalid_grant: RefreshAccessTokenError, with the code logged and not the description', async () => {
  const browser = new Browser(served)
  expect((await browser.signIn('plain')).headers.get('location')).toBe(`${served.origin}/welcome`)
  endpoint.refresh = 'invalid_grant'
  expect(await token(browser)).toEqual({ error: 'RefreshAccessTokenError', message: expect.any(String) })
  const entry = served.logs.find((e) => e.event === 'tokens.refresh_failed')!
  expect(entry.message).toMatch(/HTTP 400 \(invalid_grant\)/)
  for (const secret of endpoint.secrets) expect(JSON.stringify(served.logs)).not.toContain(secret)
  expect(await browser.session()).toHaveProperty('error', 'RefreshAccessTokenError')
})

it('tokens too large for the session cookie: the sign-in fails with an error naming `redis`', async () => {
  endpoint.accessTokenLength = 12_000
  try {
    const browser = new Browser(served)
    const res = await browser.signIn('plain')
    expect(res.status).toBe(500)
    expect(await browser.session()).toEqual({})
    expect(JSON.stringify(served.logs.slice(-3))).toContain('set `redis`')
  } finally {
    endpoint.accessTokenLength = 0
  }
})

it('a sign-in whose token endpoint answered a token over 16 KB fails as a provider error, the token logged nowhere', async () => {
  endpoint.accessTokenLength = 16 * 1024 + 1
  try {
    const browser = new Browser(served)
    const logged = served.logs.length
    const res = await browser.signIn('plain')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${served.origin}/api/auth/error?error=OAuthCallback`)
    expect(await browser.session()).toEqual({})
    const entries = served.logs.slice(logged)
    expect(entries.find((entry) => entry.event === 'callback.error')?.message).toMatch(/access_token over 16384/)
    expect(JSON.stringify(entries)).not.toContain('a'.repeat(64))
  } finally {
    endpoint.accessTokenLength = 0
  }
})
