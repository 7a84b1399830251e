import { memoryAccounts } from '../../lib'
import { Browser } from '../support/browser'
import { sharedRedisForFile } from '../support/redis'
import {
  GOOD,
  newAddress,
  passwordSignIn,
  sessionUser,
  signUp,
  startPasswordService,
  stopAll,
  bcryptHash,
  importedAccount,
  type PasswordService,
} from './password-harness'

afterEach(stopAll)

/** A user who signed up with `GOOD` the whole way (mail, link, confirm), then signed out (a fresh browser). */
async function member(service: PasswordService): Promise<string> {
  const address = newAddress()
  const res = await signUp(service, new Browser(service), address, GOOD)
  expect(res.status).toBe(302)
  return address
}

describe('password sign-in on NextAuth’s credentials wire', () => {
  it('lists the provider as NextAuth does: id and type credentials', async () => {
    const service = await startPasswordService()
    const providers = (await (await fetch(`${service.base}/providers`)).json()) as Record<string, unknown>
    expect(providers.credentials).toEqual({
      id: 'credentials',
      name: 'Password',
      type: 'credentials',
      signinUrl: `${service.base}/signin/credentials`,
      callbackUrl: `${service.base}/callback/credentials`,
    })
  })

  it('signs in with the v4 client’s request: {url} of the callbackUrl, a session for the address', async () => {
    const service = await startPasswordService()
    const address = await member(service)
    const browser = new Browser(service)
    const res = await passwordSignIn(service, browser, address, GOOD)
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 200,
      body: { url: `${service.origin}/welcome` },
    })
    expect(await sessionUser(service, browser)).toMatchObject({ email: address })
  })

  it('signs in with the v5 client’s request and the page’s form (302)', async () => {
    const service = await startPasswordService()
    const address = await member(service)
    const v5 = new Browser(service)
    const res = await passwordSignIn(service, v5, address, GOOD, { client: 'v5' })
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 200,
      body: { url: `${service.origin}/welcome` },
    })
    const form = new Browser(service)
    const posted = await passwordSignIn(service, form, address.toUpperCase(), GOOD, { client: 'form' })
    expect({ status: posted.status, location: posted.headers.get('location') }).toEqual({
      status: 302,
      location: `${service.origin}/welcome`,
    })
    expect(await sessionUser(service, form)).toMatchObject({ email: address })
  })

  it('answers a wrong password and an unknown address alike: 401 {url} with CredentialsSignin, no session', async () => {
    const service = await startPasswordService()
    const address = await member(service)
    const wrong = new Browser(service)
    const unknown = new Browser(service)
    const a = await passwordSignIn(service, wrong, address, `${GOOD}x`)
    const b = await passwordSignIn(service, unknown, newAddress(), GOOD)
    const expected = { url: `${service.base}/error?error=CredentialsSignin&provider=credentials` }
    expect({ status: a.status, body: await a.json() }).toEqual({ status: 401, body: expected })
    expect({ status: b.status, body: await b.json() }).toEqual({ status: 401, body: expected })
    expect(await sessionUser(service, wrong)).toBeNull()
    const v5 = await passwordSignIn(service, new Browser(service), address, 'not it at all, no', { client: 'v5' })
    expect(await v5.json()).toEqual({
      url: `${service.base}/error?error=CredentialsSignin&provider=credentials&code=credentials`,
    })
    const page = await passwordSignIn(service, new Browser(service), address, 'not it', { client: 'form' })
    expect(page.headers.get('location')).toBe(`${service.base}/error?error=CredentialsSignin&provider=credentials`)
  })

  it('refuses a post without the CSRF token as the sign-in routes do, and hashes nothing', async () => {
    const service = await startPasswordService()
    const address = await member(service)
    const browser = new Browser(service)
    const res = await passwordSignIn(service, browser, address, GOOD, { csrfToken: 'forged' })
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 403,
      body: { url: `${service.base}/signin?csrf=true&error=MissingCSRF` },
    })
    expect(await sessionUser(service, browser)).toBeNull()
  })
})

describe('password sign-in with what an app brings along', () => {
  const file = sharedRedisForFile('password-sign-in')

  it('makes a database session in Redis like any other sign-in', async () => {
    const service = await startPasswordService({
      options: { redis: file.client, redisKeyPrefix: `${file.prefix}db:`, session: { strategy: 'database' } },
    })
    const address = await member(service)
    const browser = new Browser(service)
    expect((await passwordSignIn(service, browser, address, GOOD)).status).toBe(200)
    expect(await sessionUser(service, browser)).toMatchObject({ email: address })
    const sessionKeys = await file.client.keys(`${file.prefix}db:*`)
    expect(sessionKeys.length).toBeGreaterThan(0)
  })

  it('signs in with a bcrypt hash imported from another system, and hashes it again as argon2id', async () => {
    const store = memoryAccounts()
    const service = await startPasswordService({ store })
    const address = newAddress()
    const userId = await importedAccount(store, address, await bcryptHash(GOOD, 4))
    expect((await passwordSignIn(service, new Browser(service), address, 'not the imported one')).status).toBe(401)
    expect((await passwordSignIn(service, new Browser(service), address, GOOD)).status).toBe(200)
    const [account] = await store.listAccounts(userId)
    expect(account?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/)
    expect((await passwordSignIn(service, new Browser(service), address, GOOD)).status).toBe(200)
  })
})
