import { auth } from '../../lib'
import { testOptions } from '../support/app'
import { configError } from '../support/config-error'

// `cors.origins` takes exact origins only, each as a browser sends it: a mistake is a
// ConfigurationError at auth() naming the option, the value and the fix. A setup whose cookies
// cannot reach the service from a listed origin is said at start-up.
const HTTPS = 'https://api.example.com/api/auth'

function start(cors: unknown, overrides: Record<string, unknown> = {}) {
  const { logs, ...options } = testOptions({ cors: cors as never, ...overrides })
  return { make: () => auth(options), logs }
}

const warnings = (logs: ReturnType<typeof start>['logs']) =>
  logs
    .filter((entry) => entry.event === 'config.warning' && entry.message.startsWith('`cors'))
    .map((entry) => entry.message)

describe('cors.origins', () => {
  it.each([
    ['a wildcard', ['*'], "`cors.origins[0]` is '*'"],
    ['null', ['null'], "`cors.origins[0]` is 'null'"],
    ['a path', ['https://app.example.com/app'], "did you mean 'https://app.example.com'?"],
    ['a query', ['https://app.example.com?x=1'], '`cors.origins[0]` must be an origin exactly as browsers send it'],
    ['a fragment', ['https://app.example.com#x'], '`cors.origins[0]` must be an origin'],
    ['the default port spelled out', ['https://app.example.com:443'], "did you mean 'https://app.example.com'?"],
    ['capitals', ['https://App.example.com'], "did you mean 'https://app.example.com'?"],
    ['no scheme', ['app.example.com'], '`cors.origins[0]` must be an origin'],
    ['not a string', ['https://app.example.com', 42], '`cors.origins[1]` must be an origin'],
    ['a pattern', [/example\.com$/], '`cors.origins[0]` must be an origin'],
    ['not an array', 'https://app.example.com', '`cors.origins` must be an array of origins'],
  ])('refuses %s, naming `cors.origins`', (_label, origins, message) => {
    const error = configError(start({ origins }).make)
    expect(error).toContain('`cors.origins')
    expect(error).toContain(message)
  })

  it('refuses clear text from another machine on an https service, or one whose scheme is known per request', () => {
    for (const overrides of [{ url: HTTPS }, { url: undefined, trustHost: true }]) {
      const error = configError(start({ origins: ['http://app.example.com'] }, overrides).make)
      expect(error).toContain('`cors.origins[0]` is http://app.example.com, served in clear text')
    }
  })

  it('refuses a near-miss key and a cors that is not an object', () => {
    expect(configError(start({ origin: ['https://app.example.com'] }).make)).toContain('cors.origin')
    expect(configError(start(['https://app.example.com']).make)).toContain('`cors`')
  })

  it('takes a trailing slash, loopback http, and any http origin when the service is http itself', () => {
    expect(() =>
      start({ origins: ['https://app.example.com/', 'http://localhost:5173', 'http://127.0.0.1:8080'] }).make(),
    ).not.toThrow()
    expect(() => start({ origins: ['http://app.test:5173'] }).make()).not.toThrow()
  })

  it('says at start-up that an http origin on an https service is for development only', () => {
    const { make, logs } = start({ origins: ['http://localhost:5173'] }, { url: HTTPS })
    make()
    expect(warnings(logs)).toContainEqual(expect.stringContaining('http://localhost:5173'))
  })

  it('says at start-up that an origin on another site gets no Lax cookie, and not for a sibling subdomain', () => {
    const sibling = start({ origins: ['https://app.example.com'] }, { url: HTTPS })
    sibling.make()
    expect(warnings(sibling.logs)).toEqual([])
    const other = start({ origins: ['https://app.example.net'] }, { url: HTTPS })
    other.make()
    expect(warnings(other.logs)).toContainEqual(
      expect.stringMatching(
        /app\.example\.net.*`cookies\.sessionToken\.options\.sameSite` and `cookies\.csrfToken\.options\.sameSite` to 'none'/,
      ),
    )
  })

  it('says nothing of cookies once both are SameSite=None (whose own warnings remain)', () => {
    const none = { options: { sameSite: 'none' } }
    const { make, logs } = start(
      { origins: ['https://app.example.net'] },
      { url: HTTPS, cookies: { sessionToken: none, csrfToken: none } },
    )
    make()
    expect(warnings(logs)).toEqual([])
  })
})
