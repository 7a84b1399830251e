import { Browser } from '../support/browser'
import { closePages, openPage, returnTo, type ClientVersion } from '../support/client-harness'
import { GOOD, newAddress, signUp, startPasswordService, stopAll } from '../password/password-harness'

/**
 * NextAuth's own clients, unchanged, signing in with `password()`: `signIn('credentials', { email,
 * password, redirect: false })` as a page of the app calls it, in a browser whose cookies live in a jar.
 */

afterEach(async () => {
  closePages()
  await stopAll()
})

describe.each<ClientVersion>(['v4', 'v5'])('the next-auth %s client with credentials', (version) => {
  it('lists the provider, signs in with the right password and reads the session; a wrong one answers CredentialsSignin', async () => {
    // The v5 client reads no session as null: the service answers it so when told (`nextAuthClient`).
    const service = await startPasswordService(version === 'v5' ? { options: { nextAuthClient: 'v5' } } : {})
    const address = newAddress()
    await signUp(service, new Browser(service), address, GOOD)
    const page = await openPage(service, version)

    const providers = await page.client.getProviders()
    expect(providers?.credentials).toMatchObject({ id: 'credentials', type: 'credentials' })

    const wrong = await page.client.signIn('credentials', {
      email: address,
      password: 'not the password at all',
      redirect: false,
      ...returnTo(page, '/welcome'),
    })
    expect(wrong).toMatchObject({ ok: false, status: 401, error: 'CredentialsSignin', url: null })
    if (version === 'v5') expect(wrong?.code).toBe('credentials')
    expect(await page.client.getSession()).toBeNull()

    const right = await page.client.signIn('credentials', {
      email: address,
      password: GOOD,
      redirect: false,
      ...returnTo(page, '/welcome'),
    })
    expect(right).toMatchObject({ ok: true, status: 200, url: `${service.origin}/welcome` })
    expect(right?.error ?? null).toBeNull()
    expect(await page.client.getSession()).toEqual({
      user: { name: null, email: address, image: null },
      expires: expect.any(String),
    })
  })
})
