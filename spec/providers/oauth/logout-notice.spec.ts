import { oauth2, oidc, type LogEntry } from '../../../lib'
import { createOAuthRegistry } from '../../../lib/features/oauth/registry'

/**
 * The start-up notice of OpenID Connect logout: once a provider signs out at the provider too
 * (`logout: 'provider'`), the OAuth providers whose sign-out stays local are named; without such a
 * provider, nothing is said (sign-out is local for everyone, as the docs say).
 */

const corp = { id: 'corp', issuer: 'https://idp.example.com', clientId: 'app', clientSecret: 's3cret' }
const github = oauth2({
  id: 'github',
  clientId: 'a',
  clientSecret: 'b',
  authorizationUrl: 'https://github.com/login/oauth/authorize',
  tokenUrl: 'https://github.com/login/oauth/access_token',
})

function noticesFor(providers: Parameters<typeof createOAuthRegistry>[0]): string[] {
  const entries: LogEntry[] = []
  createOAuthRegistry(providers, (level, event, message) => entries.push({ level, event, message }), 1000)
  return entries.filter((entry) => /sign-out/.test(entry.message)).map((entry) => entry.message)
}

it('names the providers whose sign-out stays local when another signs out at the provider', () => {
  const notices = noticesFor([
    oidc({ ...corp, logout: 'provider' }),
    github,
    oidc({ ...corp, id: 'google', logout: 'local' }),
  ])
  expect(notices).toHaveLength(1)
  expect(notices[0]).toMatch(/for github, google it ends this app's session, and the provider's stays/)
})

it('says nothing when every sign-out is local', () => {
  expect(noticesFor([oidc(corp), github])).toEqual([])
})
