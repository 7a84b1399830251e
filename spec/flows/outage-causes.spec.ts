import { de, email, oidc } from '../../lib'
import { serve } from '../support/app'
import { Browser } from '../support/browser'
import { freePort } from '../support/process'
import { FROM, newAddress, outcome, refused, requestLink } from '../support/email-harness'

/**
 * A peer that is down is logged with what an operator can act on: the system's error code and the
 * peer's host:port, and never the mail server's credentials.
 */
describe('a mail server that is down', () => {
  it('logs email.send_failed with the connection error and the host:port, not the password', async () => {
    const port = await freePort()
    const password = 'smtp-password-that-must-not-leak'
    const service = await serve({
      providers: [email({ from: FROM, server: { host: '127.0.0.1', port, auth: { user: 'mailer', pass: password } } })],
    })
    try {
      const outcomeOf = outcome(await requestLink(service, new Browser(service), newAddress()))
      expect(outcomeOf).toEqual(refused(service, 'EmailSignin'))
      const entry = service.logs.find((e) => e.event === 'email.send_failed')
      expect(entry?.message).toBe(`the sign-in mail could not be sent (ESOCKET ECONNREFUSED at 127.0.0.1:${port})`)
      expect(JSON.stringify(service.logs)).not.toContain(password)
    } finally {
      await service.close()
    }
  })
})

describe('an issuer that is down', () => {
  it('logs the discovery failure with the connection error and the host:port, not a bare "fetch failed"', async () => {
    const port = await freePort()
    const gone = await serve({
      providers: [oidc({ id: 'gone', issuer: `http://127.0.0.1:${port}`, clientId: 'c', clientSecret: 's' })],
    })
    try {
      await new Browser(gone).startSignIn('gone')
      const entry = gone.logs.find((e) => e.event === 'provider.discovery_failed')
      expect(entry?.message).toBe(
        `provider gone: OpenID Connect discovery at http://127.0.0.1:${port} failed: 127.0.0.1:${port} could not be reached (ECONNREFUSED)`,
      )
    } finally {
      await gone.close()
    }
  })

  it('tells the user the sign-in service could not be reached, not to try another account, in English and German', async () => {
    const port = await freePort()
    const gone = await serve({
      languages: { de },
      providers: [oidc({ id: 'gone', issuer: `http://127.0.0.1:${port}`, clientId: 'c', clientSecret: 's' })],
    })
    try {
      const res = await new Browser(gone).startSignIn('gone')
      const errorUrl = res.headers.get('location')!
      expect(new URL(errorUrl).searchParams.get('error')).toBe('OAuthSignin')
      const signin = await fetch(errorUrl, { redirect: 'manual' })
      const page = (language: string) =>
        fetch(signin.headers.get('location')!, { headers: { 'Accept-Language': language } }).then((r) => r.text())
      const english = await page('en')
      expect(english).toContain('The sign-in service could not be reached. Please try again in a few minutes.')
      expect(english).not.toContain('different account')
      const german = await page('de')
      expect(german).toContain('Der Anmeldedienst ist nicht erreichbar.')
      expect(german).not.toContain('anderen Konto')
    } finally {
      await gone.close()
    }
  })
})
