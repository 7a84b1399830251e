// A valid session cookie, made by the package's own session manager (as a sign-in makes one).
const { keyRing } = require('../dist/lib/crypto/keys')
const { cookieStore } = require('../dist/lib/session/cookie-store')
const { createSessionManager } = require('../dist/lib/session/manager')
const { buildCookieSet } = require('../dist/lib/config/cookies')
const { memoryState } = require('../dist/lib/store/memory')

exports.sessionCookie = async (secret) => {
  const headers = {}
  const res = {
    getHeader: (n) => headers[n],
    setHeader: (n, v) => {
      headers[n] = v
    },
  }
  const manager = createSessionManager(
    cookieStore(keyRing([secret], 'session')),
    { maxAge: 86400, updateAge: 86400, maxLifetime: 86400 },
    memoryState(86400).revocations,
  )
  const def = buildCookieSet(false, {}, false).sessionToken
  await manager.create(
    { cookies: {}, def, res },
    { userId: 'bench:1', user: { name: 'Bench', email: 'bench@example.com' } },
  )
  return String(headers['Set-Cookie']).split(';', 1)[0]
}
