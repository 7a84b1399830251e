import request from 'supertest'
import { auth, ConfigurationError, oidc } from '../../lib'
import { makeApp, testOptions } from '../support/app'
import { csrfPair } from '../support/csrf'
import { forms } from '../support/forms'

const TRUSTED = 'https://admin.example.com'
const SITE = 'http://localhost:3000/'
const providers = [
  oidc({ id: 'okta', name: 'Okta', issuer: 'https://idp.example.com', clientId: 'app', clientSecret: 'secret' }),
]
// Same host on another scheme or port, a subdomain, another site: none is the trusted origin.
const UNTRUSTED = [
  'https://evil.example.com/after',
  'http://admin.example.com/after',
  'https://admin.example.com:8443/after',
  'https://sub.admin.example.com/after',
]

async function signOutTo(app: Parameters<typeof request>[0], callbackUrl: string): Promise<string | undefined> {
  const { token, cookie } = await csrfPair(app)
  const res = await request(app)
    .post('/api/auth/signout')
    .set('Cookie', cookie)
    .type('form')
    .send({ csrfToken: token, callbackUrl })
    .expect(302)
  return res.headers.location
}

/** The callbackUrl the sign-in page's provider form carries. */
async function signInPageTarget(app: Parameters<typeof request>[0], callbackUrl: string): Promise<string | undefined> {
  const res = await request(app)
    .get(`/api/auth/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`)
    .expect(200)
  return forms(res.text)[0]?.fields.callbackUrl
}

describe('trustedOrigins', () => {
  it('POST /signout keeps a callbackUrl on a trusted origin, and replaces any other with the site origin', async () => {
    const { app, logs } = makeApp({ trustedOrigins: [TRUSTED] })
    expect(await signOutTo(app, `${TRUSTED}/after?x=1`)).toBe(`${TRUSTED}/after?x=1`)
    for (const url of UNTRUSTED) expect(await signOutTo(app, url)).toBe(SITE)
    expect(logs.filter((entry) => entry.event === 'redirect.rejected')).toHaveLength(UNTRUSTED.length)
  })

  it('GET /signin carries a callbackUrl on a trusted origin into its forms, and the site origin for any other', async () => {
    const { app } = makeApp({ providers, trustedOrigins: [TRUSTED] })
    expect(await signInPageTarget(app, `${TRUSTED}/after?x=1`)).toBe(`${TRUSTED}/after?x=1`)
    for (const url of UNTRUSTED) expect(await signInPageTarget(app, url)).toBe(SITE)
  })

  it('trusts no other origin by default', async () => {
    const { app } = makeApp({ providers })
    expect(await signOutTo(app, `${TRUSTED}/after`)).toBe(SITE)
    expect(await signInPageTarget(app, `${TRUSTED}/after`)).toBe(SITE)
  })

  it.each([
    [
      'a URL with a path',
      ['https://admin.example.com/app'],
      '`trustedOrigins[0]` must be an origin',
      '"https://admin.example.com/app"',
    ],
    [
      'a URL with a query',
      ['https://admin.example.com?x=1'],
      '`trustedOrigins[0]` must be an origin',
      '"https://admin.example.com?x=1"',
    ],
    [
      'a URL with userinfo',
      [TRUSTED, 'https://user@admin.example.com'],
      '`trustedOrigins[1]` must be an origin',
      '"https://user@admin.example.com"',
    ],
    ['a host without a scheme', ['admin.example.com'], '`trustedOrigins[0]` must be an origin', '"admin.example.com"'],
    [
      'another scheme',
      ['ftp://admin.example.com'],
      '`trustedOrigins[0]` must be an origin',
      '"ftp://admin.example.com"',
    ],
    ['not a string', [42], '`trustedOrigins[0]` must be an origin', 'got 42'],
    ['not an array', TRUSTED, '`trustedOrigins` must be an array of origins', `got "${TRUSTED}"`],
  ])('is a configuration error at auth() for %s, naming the option and the value', (_label, value, option, got) => {
    const { logs: _logs, ...options } = testOptions({ trustedOrigins: value as never })
    expect(() => auth(options)).toThrow(ConfigurationError)
    expect(() => auth(options)).toThrow(option)
    expect(() => auth(options)).toThrow(got)
  })
})
