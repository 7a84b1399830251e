/**
 * The breached-password check against a local range API (spec/support/pwned-range.ts): a password
 * the API knows is breached, one it does not know (or knows only as a padding line of count 0)
 * passes; an API that is down, slow, answers garbage or too much is "unavailable", which
 * `onUnavailable` turns into a pass with a warning or into `unverifiable`; the server only ever
 * learns five hex digits of the password's SHA-1, and is asked for padding.
 */
import { breachedCheck, resolveBreached, type BreachedOptions } from '../../lib/features/password/breached'
import { sha1Hex } from '../../lib/infra/crypto/digest'
import type { Log } from '../../lib/infra/logger'
import { configError } from '../support/config-error'
import { startRangeServer, type RangeServer } from '../support/pwned-range'

const BREACHED = 'correct horse battery staple'
const PADDED = 'a password seen only as padding'
const CLEAN = 'nobody has ever used this one 7f3a'

interface Logged {
  level: string
  event: string
  message: string
  fields?: Record<string, unknown>
}

let server: RangeServer
let entries: Logged[]
const log: Log = (level, event, message, fields) => void entries.push({ level, event, message, fields })
const check = (options: Partial<BreachedOptions> = {}) =>
  breachedCheck({ url: server.url, timeout: 2000, onUnavailable: 'refuse', ...options }, log)

beforeEach(async () => {
  server = await startRangeServer({ breached: [BREACHED], padded: [PADDED] })
  entries = []
})
afterEach(() => server.stop())

describe('sha1Hex', () => {
  it('is SHA-1 of the UTF-8 bytes in upper-case hex', () => {
    expect(sha1Hex('password')).toBe('5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8')
    expect(sha1Hex('')).toBe('DA39A3EE5E6B4B0D3255BFEF95601890AFD80709')
    expect(sha1Hex('é')).toBe(sha1Hex('\u00e9'))
    expect(sha1Hex('\u00e9')).not.toBe(sha1Hex('e\u0301'))
  })
})

describe('the range API up', () => {
  it('finds a breached password, and passes one it does not know', async () => {
    expect(await check()(BREACHED)).toBe('breached')
    expect(await check()(CLEAN)).toBeNull()
    expect(entries).toEqual([])
  })

  it('ignores padding lines (count 0), even for the password’s own suffix', async () => {
    expect(await check()(PADDED)).toBeNull()
    expect(entries).toEqual([])
  })

  it('reads LF line endings as well as CRLF', async () => {
    server.newline = '\n'
    expect(await check()(BREACHED)).toBe('breached')
    expect(await check()(CLEAN)).toBeNull()
  })

  it('sends the server five hex digits of the SHA-1 and asks for padding; never the password or the rest of the hash', async () => {
    await check()(BREACHED)
    await check()(CLEAN)
    const hashes = [sha1Hex(BREACHED), sha1Hex(CLEAN)]
    expect(server.prefixes).toEqual(hashes.map((hash) => hash.slice(0, 5)))
    expect(server.requests.map((request) => request.path)).toEqual(hashes.map((hash) => `/range/${hash.slice(0, 5)}`))
    for (const request of server.requests) {
      expect(request.method).toBe('GET')
      expect(request.headers['add-padding']).toBe('true')
      const sent = `${request.path} ${JSON.stringify(request.headers)}`.toUpperCase()
      for (const secret of [BREACHED, CLEAN, ...hashes.map((hash) => hash.slice(5, 12))])
        expect(sent).not.toContain(secret.toUpperCase())
    }
  })
})

describe('the range API unavailable', () => {
  it('down (503): refuse gives unverifiable, allow passes with a warning', async () => {
    server.mode = 'down'
    expect(await check({ onUnavailable: 'refuse' })(BREACHED)).toBe('unverifiable')
    expect(await check({ onUnavailable: 'allow' })(BREACHED)).toBeNull()
    expect(entries).toHaveLength(2)
    expect(entries[1]).toMatchObject({ level: 'warn', event: 'password.breach_check_unavailable' })
    expect(entries[1]!.message).toMatch(/503/)
    expect(entries[1]!.message).toMatch(/allowed/)
    expect(entries[0]!.message).toMatch(/refused/)
  })

  it('slow: the deadline covers the body, and holds', async () => {
    server.mode = 'slow'
    const started = Date.now()
    expect(await check({ timeout: 300 })(BREACHED)).toBe('unverifiable')
    const took = Date.now() - started
    expect(took).toBeGreaterThanOrEqual(290)
    expect(took).toBeLessThan(1500)
    expect(server.prefixes).toHaveLength(1)
    expect(entries[0]!.message).toMatch(/300 ms/)
  })

  it('garbage: an answer that is not SUFFIX:COUNT lines is no answer', async () => {
    server.mode = 'garbage'
    expect(await check()(CLEAN)).toBe('unverifiable')
    expect(entries[0]!.message).toMatch(/malformed/)
  })

  it('huge: the body is capped (1 MiB), lines past the cap are never read', async () => {
    server.mode = 'huge'
    const started = Date.now()
    expect(await check({ timeout: 10_000 })(BREACHED)).toBe('unverifiable')
    expect(Date.now() - started).toBeLessThan(5000)
    expect(entries[0]!.message).toMatch(/more than 1048576 bytes/)
  })

  it('no server: a refused connection is unavailable too', async () => {
    await server.stop()
    expect(await check()(BREACHED)).toBe('unverifiable')
    expect(await check({ onUnavailable: 'allow' })(BREACHED)).toBeNull()
  })

  it('a redirect is not followed: the prefix goes only where it was configured to', async () => {
    server.mode = 'redirect'
    expect(await check()(BREACHED)).toBe('unverifiable')
    expect(server.requests.map((request) => request.path)).toEqual([`/range/${sha1Hex(BREACHED).slice(0, 5)}`])
  })

  it('a wrong address (404) is unavailable, not a pass', async () => {
    expect(await check({ url: server.url.replace('/range/', '/nothing/') })(BREACHED)).toBe('unverifiable')
    expect(entries[0]!.message).toMatch(/404/)
  })

  it('never logs the password, its hash or its prefix', async () => {
    server.mode = 'garbage'
    await check({ onUnavailable: 'allow' })(BREACHED)
    server.mode = 'down'
    await check({ onUnavailable: 'allow' })(BREACHED)
    expect(entries).toHaveLength(2)
    const logged = JSON.stringify(entries).toUpperCase()
    for (const secret of [BREACHED, sha1Hex(BREACHED), sha1Hex(BREACHED).slice(0, 5)])
      expect(logged).not.toContain(secret.toUpperCase())
  })
})

describe('resolveBreached', () => {
  const WHERE = 'password().breached'

  it('defaults to Have I Been Pwned, 2 s, allow; false turns the check off', () => {
    expect(resolveBreached(undefined, WHERE)).toEqual({
      url: 'https://api.pwnedpasswords.com/range/',
      timeout: 2000,
      onUnavailable: 'allow',
    })
    expect(Object.isFrozen(resolveBreached({}, WHERE))).toBe(true)
    expect(resolveBreached(false, WHERE)).toBeNull()
    expect(
      resolveBreached({ url: 'http://127.0.0.1:9999/range/', timeout: 500, onUnavailable: 'refuse' }, WHERE),
    ).toEqual({ url: 'http://127.0.0.1:9999/range/', timeout: 500, onUnavailable: 'refuse' })
  })

  it('names the option and the fix for each mistake', () => {
    expect(configError(() => resolveBreached(true, WHERE))).toMatch(
      /^`password\(\)\.breached` must be false or an object such as \{ onUnavailable: 'refuse' \}; got true/,
    )
    expect(configError(() => resolveBreached({ url: 'api.pwnedpasswords.com/range/' }, WHERE))).toMatch(
      /^`password\(\)\.breached\.url` must be an absolute http\(s\) URL .*'https:\/\/api\.pwnedpasswords\.com\/range\/'; got "api\.pwnedpasswords\.com\/range\/"/,
    )
    expect(configError(() => resolveBreached({ url: 'ftp://example.com/range/' }, WHERE))).toMatch(
      /^`password\(\)\.breached\.url` must be an absolute http\(s\) URL/,
    )
    expect(configError(() => resolveBreached({ url: 'https://api.pwnedpasswords.com/range' }, WHERE))).toMatch(
      /^`password\(\)\.breached\.url` must end with "\/".*'https:\/\/api\.pwnedpasswords\.com\/range\/'/,
    )
    expect(configError(() => resolveBreached({ url: 'https://example.com/range/?key=1' }, WHERE))).toMatch(
      /^`password\(\)\.breached\.url` must have no query or fragment/,
    )
    expect(configError(() => resolveBreached({ url: 'https://user:pw@example.com/range/' }, WHERE))).toMatch(
      /^`password\(\)\.breached\.url` must have no user name or password/,
    )
    expect(configError(() => resolveBreached({ timeout: 0 }, WHERE))).toMatch(
      /^`password\(\)\.breached\.timeout` must be a whole number of milliseconds/,
    )
    expect(configError(() => resolveBreached({ onUnavailable: 'block' }, WHERE))).toBe(
      "`password().breached.onUnavailable` must be 'allow' or 'refuse'; got \"block\"",
    )
    expect(configError(() => resolveBreached({ timout: 100 }, WHERE))).toMatch(
      /Unknown option `password\(\)\.breached\.timout`\. Did you mean `password\(\)\.breached\.timeout`\?/,
    )
  })
})
