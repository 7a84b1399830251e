import { postgresAccounts, redisAccounts, type AccountStore } from '../../lib'
import { Browser } from '../support/browser'
import { sharedRedisForFile } from '../support/redis'
import { postgresForFile } from '../support/postgres'
import { GOOD, passwordSignIn } from '../password/password-harness'
import { codeOf, enrolledUser, newAddress, post, startMfaService, stopAll, type MfaService } from './mfa-harness'

/**
 * Two instances of one app on one Redis (`redis`, shared state) and one accounts store: a sign-in
 * begun on one finishes on the other, a code spent on one is spent on both, and the codes of a
 * pending sign-in are counted across them. Each store that keeps factors: Redis, then PostgreSQL.
 */

afterEach(stopAll)
const file = sharedRedisForFile('mfa-instances')
const db = postgresForFile('mfa-instances')
let tables = 0

async function twoInstances(store: () => Promise<AccountStore>): Promise<[MfaService, MfaService]> {
  const accounts = await store()
  const options = { redis: file.client, redisKeyPrefix: `${file.prefix}s${tables++}:` }
  const one = await startMfaService(undefined, { store: accounts, options })
  const two = await startMfaService(undefined, { store: accounts, options })
  return [one, two]
}

/** The same browser at the other instance (cookies do not tell ports apart, as behind one load balancer). */
const at = (service: MfaService, browser: Browser) => new Browser(service, browser.jar)

describe.each([
  ['redisAccounts()', async () => redisAccounts(file.client, { prefix: `${file.prefix}a${tables++}:` })],
  [
    'postgresAccounts()',
    async () => {
      const store = postgresAccounts(db.pool(), { tablePrefix: `mfa${tables++}_` })
      await store.migrate()
      return store
    },
  ],
])('on two instances with %s', (_name, store) => {
  it('finishes on the second instance a sign-in begun on the first, and spends each code once on both', async () => {
    const [one, two] = await twoInstances(store)
    const address = newAddress()
    const { key } = await enrolledUser(one, new Browser(one), address)
    const browser = new Browser(one)
    await passwordSignIn(one, browser, address, GOOD)
    const code = codeOf(key, Date.now() + 30_000)
    const verified = await post(two, at(two, browser), '/mfa/verify', { factor: 'totp', code })
    expect(verified.status).toBe(302)
    expect(await two.record(at(two, browser))).toMatchObject({ aal: 2 })
    // The same code on the first instance, for another sign-in: spent.
    const again = new Browser(one)
    await passwordSignIn(one, again, address, GOOD)
    expect((await post(one, again, '/mfa/verify', { factor: 'totp', code })).status).toBe(401)
  })

  it('counts the codes of a pending sign-in on both instances: five in all', async () => {
    const [one, two] = await twoInstances(store)
    const address = newAddress()
    const { key } = await enrolledUser(one, new Browser(one), address)
    const browser = new Browser(one)
    await passwordSignIn(one, browser, address, GOOD)
    const cookies = browser.jar.header(`${one.base}/mfa/verify`)!
    // Three wrong on the first, two on the second from a copy of the cookie: five.
    for (let i = 0; i < 3; i++)
      expect((await post(one, browser, '/mfa/verify', { factor: 'totp', code: '000000' })).status).toBe(401)
    const copy = new Browser(two)
    for (const pair of cookies.split('; ')) copy.jar.set(`${two.base}/`, `${pair}; Path=/`)
    for (let i = 0; i < 2; i++)
      expect((await post(two, copy, '/mfa/verify', { factor: 'totp', code: '000000' })).status).toBe(401)
    expect(
      (await post(one, browser, '/mfa/verify', { factor: 'totp', code: codeOf(key, Date.now() + 30_000) })).status,
    ).toBe(401)
    expect(await browser.session()).toEqual({})
  })
})
