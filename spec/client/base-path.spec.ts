import type { AuthOptions } from '../../lib'
import { outcome, newAddress, signedInTo, stopAll, verifyRequestUrl } from '../support/email-harness'
import {
  closePages,
  followMailedLink,
  openPage,
  returnTo,
  startEmailServiceAt,
  type ClientVersion,
} from '../support/client-harness'

/**
 * Both NextAuth clients, unchanged, with a base path of the app's own: the service's `url` is
 * `http://localhost:<port>/myapp/api/authentication` (its router at the app's root) and the
 * client's `NEXTAUTH_URL` is that URL. Every call, the mailed link and the answers must stay under
 * that path: a client or a service that assumed `/api/auth` would fail here.
 */

const PATH = '/myapp/api/authentication'

afterEach(async () => {
  closePages()
  await stopAll()
})

const clients: Array<[string, ClientVersion, AuthOptions]> = [
  ['next-auth 4', 'v4', {}],
  ['next-auth 5', 'v5', { nextAuthClient: 'v5' }],
]

describe.each(clients)('the %s client', (_name, version, options) => {
  it('reads the token and the providers, signs in by e-mail, and signs out', async () => {
    const service = await startEmailServiceAt(PATH, options)
    const page = await openPage(service, version)
    const { client } = page

    expect(await client.getCsrfToken()).toMatch(/^[\w-]{32,}$/)
    expect(await client.getProviders()).toEqual({
      email: {
        id: 'email',
        name: 'Email',
        type: 'email',
        signinUrl: `${service.base}/signin/email`,
        callbackUrl: `${service.base}/callback/email`,
      },
    })
    expect(await client.getSession()).toBeNull()

    const address = newAddress()
    const started = await client.signIn('email', { email: address, redirect: false, ...returnTo(page, '/welcome') })
    expect(started).toMatchObject({ ok: true, status: 200, url: verifyRequestUrl(service) })
    expect(started?.error ?? null).toBeNull()
    // followMailedLink finds the link only under `{base}/callback/email`.
    expect(outcome(await followMailedLink(service, page, address))).toEqual(signedInTo(`${service.origin}/welcome`))
    expect(await client.getSession()).toMatchObject({ user: { email: address } })

    expect(await client.signOut({ redirect: false, ...returnTo(page, '/bye') })).toEqual({
      url: `${service.origin}/bye`,
    })
    expect(await client.getSession()).toBeNull()
    // Every call the client made went to the service's own path.
    const paths = page.requests.map((request) => request.url.pathname)
    expect(paths.filter((path) => !path.startsWith(`${PATH}/`))).toEqual([])
  })
})
