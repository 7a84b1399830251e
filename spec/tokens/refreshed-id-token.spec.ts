import type { Express } from 'express'
import { AuthError, oidc, type AuthRouter } from '../../lib'
import { open } from '../../lib/infra/crypto/jwe'
import { keyRing } from '../../lib/infra/crypto/keys'
import { openTokens } from '../../lib/features/provider-tokens/token-set'
import { SECRET, serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'

// With cookie sessions (no Redis: no lock, no deadline) the ID token of a refresh answer is kept
// when it verifies and speaks of the same subject as the one kept; one for another subject is
// dropped (OpenID Connect Core 12.2) with a warning that holds no token, the new access and
// refresh tokens kept all the same.
jest.setTimeout(30_000)

let issuer: HostileIssuer
let served: Served

beforeAll(async () => {
  issuer = await startHostileIssuer({ refreshTokens: true })
  const holder: { router?: AuthRouter } = {}
  served = await serve(
    {
      providers: [
        oidc({
          id: 'hostile',
          issuer: issuer.issuer,
          clientId: issuer.clientId,
          clientSecret: issuer.clientSecret,
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
              res.status(error instanceof AuthError ? error.status : 500).json({ error: String(error) }),
          )
        }),
    },
  )
  holder.router = served.router
})

afterEach(() => issuer.reset())

afterAll(async () => {
  await served?.close()
  await issuer?.stop()
})

/** The ID token the browser's session cookie holds (sealed twice: the session, and the tokens in it). */
function keptIdToken(browser: Browser): string | undefined {
  const session = open(keyRing([SECRET], 'session'), browser.cookie('auth.session-token')?.value)
  const tok = session?.tok
  if (typeof tok !== 'string' || !tok.startsWith('s:')) throw new Error('the session holds no sealed tokens')
  return openTokens(keyRing([SECRET], 'provider-tokens'), tok.slice(2))?.idToken
}

async function refreshed(): Promise<{ browser: Browser; signInIdToken: string }> {
  const browser = new Browser(served)
  expect((await browser.signIn('hostile')).headers.get('location')).toBe(`${served.origin}/welcome`)
  return { browser, signInIdToken: issuer.idTokens.at(-1)! }
}

const token = async (browser: Browser) => (await browser.jar.fetch(`${served.origin}/token`)).status

it('a refreshed ID token that verifies, for the same subject, replaces the one kept', async () => {
  const { browser, signInIdToken } = await refreshed()
  expect(keptIdToken(browser)).toBe(signInIdToken)
  expect(await token(browser)).toBe(200)
  expect(issuer.idTokens.at(-1)).not.toBe(signInIdToken)
  expect(keptIdToken(browser)).toBe(issuer.idTokens.at(-1))
})

it('a refreshed ID token for another subject is dropped with a warning, the refresh answered all the same', async () => {
  const { browser, signInIdToken } = await refreshed()
  issuer.behave({ idTokenClaims: { sub: 'mallory' } })
  const logged = served.logs.length
  expect(await token(browser)).toBe(200)
  expect(keptIdToken(browser)).toBe(signInIdToken)
  const entries = served.logs.slice(logged)
  expect(entries.find((entry) => entry.event === 'tokens.warning')?.message).toMatch(
    /new ID token was not kept: it names another subject/,
  )
  expect(JSON.stringify(entries)).not.toContain(issuer.idTokens.at(-1)!)
})
