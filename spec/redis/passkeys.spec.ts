/**
 * Passkeys with `redis`: two instances of one app (one `url`, one secret, their own ioredis
 * clients) on one Redis. A passkey added at one signs in at the other; a challenge issued by one is
 * spent on the other, and exactly once when the same answer reaches both at the same moment.
 */
import { Browser } from '../support/browser'
import { freeSite } from '../support/app'
import { sharedRedis, type SharedRedis } from '../support/redis'
import { SoftAuthenticator } from '../support/soft-authenticator'
import {
  askOptions,
  postAnswer,
  registerPasskey,
  signInByEmail,
  startPasskeyService,
  type PasskeyService,
} from '../support/passkey-harness'

let redis: SharedRedis
let prefix: string
let instances: PasskeyService[]

beforeAll(async () => {
  redis = await sharedRedis()
  prefix = redis.prefix('passkeys')
  const [a, b] = [await freeSite(), await freeSite()]
  // Both behind one address, as behind a load balancer: every answer's origin is the same.
  const shared = { url: a.base, redisKeyPrefix: prefix }
  instances = [
    await startPasskeyService({}, { ...shared, redis: redis.client() }, { site: a }),
    await startPasskeyService({}, { ...shared, redis: redis.client() }, { site: b }),
  ]
})

afterAll(async () => {
  await Promise.all((instances ?? []).map((instance) => instance.close()))
  await redis?.deleteKeys(prefix)
  await redis?.close()
})

/** The instance reached at `index`, answering as the one service the browser knows. */
const at = (index: number) => instances[index]!

it('keeps passkeys in Redis: added at one instance, signing in at the other', async () => {
  const browser = new Browser(at(0))
  await signInByEmail(at(0), browser, 'redis@example.com')
  const authenticator = new SoftAuthenticator(at(0).origin)
  expect(await registerPasskey(at(0), browser, authenticator)).toMatchObject({ status: 200, session: false })
  expect(await at(1).router.listPasskeys('email:redis@example.com')).toHaveLength(1)
  const other = new Browser(at(1))
  const asked = await askOptions(at(0), other)
  const answer = authenticator.get(asked.body.options as never)
  expect(await postAnswer(at(1), other, 'authenticate', answer)).toMatchObject({ session: true })
})

it('spends a challenge exactly once when one answer reaches both instances at once', async () => {
  const browser = new Browser(at(0))
  await signInByEmail(at(0), browser, 'race@example.com')
  const authenticator = new SoftAuthenticator(at(0).origin)
  await registerPasskey(at(0), browser, authenticator)
  await browser.signOut()
  for (let round = 0; round < 5; round++) {
    const asked = await askOptions(at(round % 2), browser)
    const answer = authenticator.get(asked.body.options as never)
    const cookie = browser.cookie('auth.webauthn-challenge')!
    const copy = new Browser(at(1))
    copy.jar.set(at(1).origin, `${cookie.name}=${cookie.value}; Path=/; HttpOnly; SameSite=Lax`)
    const csrf = browser.cookie('auth.csrf-token')!
    copy.jar.set(at(1).origin, `${csrf.name}=${csrf.value}; Path=/; HttpOnly; SameSite=Lax`)
    const token = await browser.csrfToken()
    const answers = await Promise.all([
      postAnswer(at(0), browser, 'authenticate', answer, { csrfToken: token }),
      postAnswer(at(1), copy, 'authenticate', answer, { csrfToken: token }),
    ])
    expect(answers.filter((one) => one.session)).toHaveLength(1)
    // The signed-in browser signs out again for the next round.
    await (answers[0].session ? browser : copy).signOut()
  }
})
