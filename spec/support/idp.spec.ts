import { createHash, randomBytes } from 'node:crypto'
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { restoreClock, setClock, useClock } from './clock'
import { CookieJar } from './cookie-jar'
import { editUser, startIdp, type Idp } from './idp'
import { idpLogin } from './idp-login'

// The test IdP on its own, with no code of ours: proves that the authorization code flow (PKCE,
// state, nonce, RFC 9207 iss) works against it over plain HTTP with the cookie jar.

jest.setTimeout(30_000)

const REDIRECT_URI = 'http://localhost:3999/api/auth/callback/oidc' // nothing listens: we only read Location
const client = { client_id: 'test-app', client_secret: 'test-secret', redirect_uris: [REDIRECT_URI] }

interface Discovery {
  issuer: string
  authorization_endpoint: string
  token_endpoint: string
  userinfo_endpoint: string
  jwks_uri: string
  code_challenge_methods_supported: string[]
  authorization_response_iss_parameter_supported: boolean
}

let idp: Idp
let discovery: Discovery

beforeAll(async () => {
  idp = await startIdp({ clients: [client] })
  discovery = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Discovery
})

afterAll(async () => {
  await idp?.stop()
})

function authorizationRequest(overrides: Record<string, string | undefined> = {}) {
  const verifier = randomBytes(32).toString('base64url')
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    scope: 'openid email profile',
    state: randomBytes(16).toString('base64url'),
    nonce: randomBytes(16).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...overrides,
  }
  const url = new URL(discovery.authorization_endpoint)
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value)
  return { url, verifier, state: params.state, nonce: params.nonce }
}

function tokenRequest(code: string, verifier: string): Promise<Response> {
  return fetch(discovery.token_endpoint, {
    method: 'POST',
    // RFC 6749 §2.3.1: id and secret are form-urlencoded before base64 (oidc-provider decodes them).
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    }),
  })
}

function callbackOf(url: URL): string {
  return `${url.origin}${url.pathname}`
}

test('discovery advertises what our client relies on', () => {
  expect(discovery.issuer).toBe(idp.issuer)
  expect(idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  expect(discovery.code_challenge_methods_supported).toEqual(['S256'])
  expect(discovery.authorization_response_iss_parameter_supported).toBe(true)
})

test('authorization code flow: login, code + state + iss, token exchange, ID token, userinfo', async () => {
  const jar = new CookieJar()
  const request = authorizationRequest()

  const back = await idpLogin(request.url, { jar, login: 'alice', password: 'anything' })
  expect(callbackOf(back)).toBe(REDIRECT_URI)
  expect(back.searchParams.get('state')).toBe(request.state)
  expect(back.searchParams.get('iss')).toBe(idp.issuer)
  const code = back.searchParams.get('code')
  expect(code).toBeTruthy()

  // The IdP's session cookie made it over plain HTTP: not Secure, so a jar (or browser) keeps it.
  const session = jar.get(new URL(idp.issuer), '_session')
  expect(session).toMatchObject({ httpOnly: true, secure: false, sameSite: 'Lax', path: '/' })

  const response = await tokenRequest(code ?? '', request.verifier)
  const tokens = (await response.json()) as { access_token?: string; id_token?: string; token_type?: string }
  expect(response.status).toBe(200)
  expect(tokens.token_type).toBe('Bearer')
  expect(tokens.access_token).toEqual(expect.any(String))

  const idToken = tokens.id_token ?? ''
  expect(decodeProtectedHeader(idToken).alg).toBe('RS256')
  const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(discovery.jwks_uri)), {
    issuer: idp.issuer,
    audience: client.client_id,
  })
  expect(payload).toMatchObject({
    sub: 'alice',
    nonce: request.nonce,
    email: 'alice@example.com',
    email_verified: true,
    name: 'Alice Example',
  })

  const userinfo = await fetch(discovery.userinfo_endpoint, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  })
  expect(userinfo.status).toBe(200)
  expect(await userinfo.json()).toEqual({
    sub: 'alice',
    name: 'Alice Example',
    email: 'alice@example.com',
    email_verified: true,
    picture: `${idp.issuer}/avatar/alice.svg`,
  })

  // The same jar is still signed in at the IdP: the next authorization needs no login page.
  const again = await idpLogin(authorizationRequest().url, { jar })
  expect(again.searchParams.get('code')).toBeTruthy()
})

test('Cancel on the login page sends error=access_denied back to the client', async () => {
  const request = authorizationRequest()
  const back = await idpLogin(request.url, { jar: new CookieJar(), action: 'deny' })
  expect(callbackOf(back)).toBe(REDIRECT_URI)
  expect(back.searchParams.get('error')).toBe('access_denied')
  expect(back.searchParams.get('state')).toBe(request.state)
  expect(back.searchParams.get('iss')).toBe(idp.issuer)
  expect(back.searchParams.has('code')).toBe(false)
})

test('a wrong password keeps the user on the login page', async () => {
  await expect(
    idpLogin(authorizationRequest().url, { jar: new CookieJar(), login: 'nobody', password: 'x' }),
  ).rejects.toThrow('Unknown user or wrong password')
})

test('the token endpoint rejects a wrong PKCE verifier, and PKCE is required', async () => {
  const request = authorizationRequest()
  const back = await idpLogin(request.url, { jar: new CookieJar(), login: 'alice@example.com' })
  const response = await tokenRequest(back.searchParams.get('code') ?? '', randomBytes(32).toString('base64url'))
  expect(response.status).toBe(400)
  expect(await response.json()).toMatchObject({ error: 'invalid_grant' })

  const noPkce = await idpLogin(
    authorizationRequest({ code_challenge: undefined, code_challenge_method: undefined }).url,
    { jar: new CookieJar() },
  )
  expect(noPkce.searchParams.get('error')).toBe('invalid_request')
  expect(noPkce.searchParams.get('error_description')).toMatch(/PKCE/)
})

describe('per-user claims', () => {
  let other: Idp
  beforeAll(async () => {
    other = await startIdp({
      clients: [client],
      editableUsers: true,
      users: [
        { accountId: 'alice', name: 'Alice Example', email: 'alice@example.com' },
        { accountId: 'eve', name: 'Eve Example', email: 'alice@example.com', emailVerified: false },
      ],
    })
  })
  afterAll(() => other?.stop())

  /** The claims of a fresh ID token for `login`, from the IdP `other`. */
  async function claimsOf(login: string) {
    const meta = (await (await fetch(`${other.issuer}/.well-known/openid-configuration`)).json()) as Discovery
    const request = authorizationRequest()
    const url = new URL(meta.authorization_endpoint)
    url.search = request.url.search
    const back = await idpLogin(url, { jar: new CookieJar(), login })
    const res = await fetch(meta.token_endpoint, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code') ?? '',
        redirect_uri: REDIRECT_URI,
        code_verifier: request.verifier,
      }),
    })
    const { id_token: idToken } = (await res.json()) as { id_token: string }
    return (await jwtVerify(idToken, createRemoteJWKSet(new URL(meta.jwks_uri)))).payload
  }

  test('a user configured with emailVerified: false gets email_verified false; the others true', async () => {
    expect(await claimsOf('eve')).toMatchObject({ sub: 'eve', email: 'alice@example.com', email_verified: false })
    expect(await claimsOf('alice')).toMatchObject({ sub: 'alice', email_verified: true })
  })

  test('editUser changes what the IdP says of a known sub from the next token on', async () => {
    await editUser(other, 'alice', { email: 'alice@elsewhere.example', emailVerified: false })
    expect(await claimsOf('alice')).toMatchObject({
      sub: 'alice',
      email: 'alice@elsewhere.example',
      email_verified: false,
    })
    await expect(editUser(idp, 'alice', { email: 'x@example.com' })).rejects.toThrow('editableUsers')
    await expect(editUser(other, 'nobody', { email: 'x@example.com' })).rejects.toThrow('404')
  })
})

describe('CookieJar', () => {
  const app = new URL('http://localhost:3000/api/auth/signin')
  afterEach(restoreClock)

  test('stores several Set-Cookie headers and sends them back by host and path', () => {
    const jar = new CookieJar()
    const headers = new Headers()
    headers.append('set-cookie', 'a=1; Path=/; HttpOnly; SameSite=Lax')
    headers.append('set-cookie', 'b=2; Path=/api/auth; Secure; SameSite=Strict')
    headers.append('set-cookie', 'c=3; Path=/other')
    jar.store(app, { headers })
    expect(jar.header('http://localhost:3000/api/auth/session')).toBe('b=2; a=1')
    expect(jar.header('http://localhost:4000/')).toBe('a=1') // cookies ignore the port
    expect(jar.header('http://127.0.0.1:3000/api/auth/session')).toBeUndefined()
    expect(jar.get('localhost:3000', 'b')).toMatchObject({
      value: '2',
      secure: true,
      httpOnly: false,
      sameSite: 'Strict',
      path: '/api/auth',
    })
    expect(jar.all('http://localhost').map((c) => c.name)).toEqual(['a', 'b', 'c'])
    // Coming back from another site (the IdP's redirect): Strict stays home, Lax only for GET.
    expect(jar.header('http://localhost:3000/api/auth/callback', { crossSite: true })).toBe('a=1')
    expect(jar.header('http://localhost:3000/api/auth/callback', { crossSite: true, method: 'POST' })).toBeUndefined()
  })

  test('Max-Age=0 and past Expires delete; expiry follows the clock', () => {
    const start = Date.parse('2030-01-01T00:00:00Z') / 1000
    useClock(start)
    const jar = new CookieJar()
    jar.set(app, 'a=1; Path=/; Max-Age=60')
    jar.set(app, 'b=2; Path=/; Expires=Wed, 01 Jan 2031 00:00:00 GMT')
    expect(jar.header(app)).toBe('a=1; b=2')
    setClock(start + 61)
    expect(jar.header(app)).toBe('b=2')
    jar.set(app, 'b=; Path=/; Max-Age=0')
    expect(jar.get('localhost', 'b')).toBeUndefined()
    jar.set(app, 'c=3; Path=/')
    jar.set(app, 'c=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT')
    expect(jar.all('localhost')).toEqual([])
  })

  test('rejects what browsers reject', () => {
    const jar = new CookieJar()
    expect(jar.set('http://example.test/', 's=1; Secure')).toBeUndefined() // Secure over http (not localhost)
    expect(jar.set(app, 'n=1; SameSite=None')).toBeUndefined() // SameSite=None needs Secure
    expect(jar.set(app, '__Host-x=1; Secure; Path=/api')).toBeUndefined()
    expect(jar.set(app, '__Host-x=1; Secure; Path=/')).toMatchObject({ hostOnly: true })
    expect(jar.set(app, 'd=1; Domain=example.test')).toBeUndefined() // another site
    expect(jar.set('http://app.example.test/', 'd=1; Domain=.example.test; Path=/')).toMatchObject({
      domain: 'example.test',
      hostOnly: false,
    })
    expect(jar.header('http://sub.app.example.test/')).toBe('d=1')
    expect(jar.set(app, 'e=1')).toMatchObject({ path: '/api/auth' }) // default path: the request's directory
  })
})
