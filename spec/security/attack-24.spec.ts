import { email } from '../../lib'
import { serve, type Served } from '../support/app'

/**
 * Attacks from outside on passkeys (issue 24): each test is a finding that failed before its fix
 * on this branch.
 */

describe('the passkey script on a service without passkey()', () => {
  let app: Served

  beforeAll(async () => {
    app = await serve({
      providers: [email({ from: 'auth@example.com', sendVerificationRequest: () => undefined })],
    })
  })
  afterAll(() => app.close())

  // The script posts a credential and a CSRF token it fetches to whatever form carries its data
  // attributes: a script gadget on the origin. An app that never configured passkey() must not
  // serve it, or a page of the app allowing same-origin scripts gains it on an HTML injection.
  it('is not served (404), as any route of a provider that is not configured', async () => {
    const res = await fetch(`${app.base}/assets/passkey.js`)
    expect(res.status).toBe(404)
    expect(await res.text()).not.toContain('navigator.credentials')
  })
})
