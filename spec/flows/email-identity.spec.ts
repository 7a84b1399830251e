import type Redis from 'ioredis'
import type { AuthOptions, SessionRecord } from '../../lib'
import { Browser } from '../support/browser'
import { sharedRedis, type SharedRedis } from '../support/redis'
import {
  errorUrl,
  localPart,
  newAddress,
  outcome,
  refused,
  requestLink,
  signedInTo,
  startEmailService,
  stopAll,
  useLink,
  verifyRequestUrl,
  type EmailOptions,
  type EmailService,
} from '../support/email-harness'
import { signInLink } from '../support/smtp'

/**
 * Who signs in with a link: one mailbox is one user. `carol@`, `Carol@` and `CAROL@EXAMPLE.COM`
 * get their mail at `carol@example.com` and sign in as the one user `email:carol@example.com`,
 * whose sessions the app's revokeSessions ends, all of them, in cookie and in database mode. An
 * app whose mail server tells those apart says so with `normalizeIdentifier`; an answer of that
 * function that is not one plain mailbox refuses the sign-in like an invalid address.
 */

let redis: SharedRedis
let client: Redis
let prefix: string

beforeAll(async () => {
  redis = await sharedRedis()
  client = redis.client()
  prefix = redis.prefix('email-identity')
})
afterEach(stopAll)
afterAll(async () => {
  await redis.deleteKeys(prefix)
  await redis.close()
})

const modes: Array<[string, () => AuthOptions]> = [
  ['cookie', () => ({})],
  [
    'database',
    () => ({ redis: client, redisKeyPrefix: prefix, session: { strategy: 'database', revocationDelay: 0 } }),
  ],
]

/** A service whose signIn event tells which user id each sign-in made. */
async function start(options: Partial<EmailOptions>, auth: AuthOptions) {
  const userIds: string[] = []
  const service = await startEmailService(
    { rateLimits: { addressPerMinute: 10, addressPerHour: 10 }, ...options },
    {
      ...auth,
      events: { signIn: ({ record }: { record: Readonly<SessionRecord> }) => void userIds.push(record.userId) },
    },
  )
  return { service, userIds }
}

/** Asks for a link as `written`, checks where the mail went and what the link names, and uses it. */
async function signInAs(service: EmailService, written: string, mailbox: string): Promise<Browser> {
  const browser = new Browser(service)
  const asked = await requestLink(service, browser, written)
  expect(outcome(asked)).toEqual({ status: 302, location: verifyRequestUrl(service), session: false })
  const mail = await service.smtp.nextMessage()
  expect({ envelope: mail.envelope.to, to: mail.to }).toEqual({ envelope: [mailbox], to: [mailbox] })
  const link = signInLink(mail, service.base)
  expect(link.searchParams.get('email')).toBe(mailbox)
  expect(outcome(await useLink(service, browser, link))).toEqual(signedInTo(`${service.origin}/welcome`))
  expect(await browser.session()).toMatchObject({ user: { email: mailbox } })
  return browser
}

describe.each(modes)('one mailbox is one user (%s sessions)', (_mode, auth) => {
  it('carol@, Carol@ and CAROL@EXAMPLE.COM sign in as email:carol@…; revokeSessions of that id ends all three', async () => {
    const { service, userIds } = await start({}, auth())
    const local = localPart(newAddress())
    const mailbox = `${local}@example.com`
    const capitalised = `${local[0]!.toUpperCase()}${local.slice(1)}@example.com`
    const shouted = mailbox.toUpperCase()

    const browsers = []
    for (const written of [mailbox, capitalised, shouted]) browsers.push(await signInAs(service, written, mailbox))
    expect(userIds).toEqual(Array(3).fill(`email:${mailbox}`))

    await service.router.revokeSessions(`email:${mailbox}`)
    for (const browser of browsers) expect(await browser.session()).toEqual({})
  })

  it('sign-out everywhere from the session made as Carol@ ends the one made as carol@', async () => {
    const { service } = await start({}, auth())
    const local = localPart(newAddress())
    const mailbox = `${local}@example.com`
    const lower = await signInAs(service, mailbox, mailbox)
    const upper = await signInAs(service, `${local.toUpperCase()}@Example.com`, mailbox)
    expect((await upper.signOut({ everywhere: 'true' })).status).toBe(302)
    expect(await lower.session()).toEqual({})
  })

  it('a normalizeIdentifier that keeps case: Carol@ and carol@ are two users, each mailed as written', async () => {
    const { service, userIds } = await start({ normalizeIdentifier: (address) => address }, auth())
    const local = localPart(newAddress())
    const [lower, upper] = [`${local}@example.com`, `${local.toUpperCase()}@example.com`]
    const lowerBrowser = await signInAs(service, lower, lower)
    const upperBrowser = await signInAs(service, upper, upper)
    expect(userIds).toEqual([`email:${lower}`, `email:${upper}`])

    await service.router.revokeSessions(`email:${lower}`)
    expect(await lowerBrowser.session()).toEqual({})
    expect(await upperBrowser.session()).toMatchObject({ user: { email: upper } })
  })
})

describe('the per-address limit', () => {
  it('counts one mailbox whatever the case, even when normalizeIdentifier keeps case', async () => {
    const { service } = await start({ normalizeIdentifier: (address) => address, rateLimits: {} }, {})
    const local = localPart(newAddress())
    const browser = new Browser(service)
    for (const written of [`${local}@example.com`, `${local.toUpperCase()}@example.com`]) {
      expect(outcome(await requestLink(service, browser, written))).toEqual({
        status: 302,
        location: verifyRequestUrl(service),
        session: false,
      })
    }
    expect((await service.smtp.messagesAfter(200)).map((mail) => mail.envelope.to)).toEqual([[`${local}@example.com`]])
    expect(service.logs.filter((entry) => entry.event === 'email.rate_limited')).toHaveLength(1)
  })
})

describe('a normalizeIdentifier answering something else than one plain mailbox', () => {
  const garbage: Array<[string, (address: string) => unknown]> = [
    ['a number', () => 42],
    ['null', () => null],
    ['undefined', () => undefined],
    ['an empty string', () => ''],
    ['two addresses', (address) => `${address},attacker@evil.example`],
    ['a display name', (address) => `Carol <${address}>`],
    ['a line break and a header', (address) => `${address}\r\nBcc: attacker@evil.example`],
    ['a String object', (address) => new String(address)],
    ['an object that prints as the address', (address) => ({ toString: () => address })],
    ['a promise of the address', (address) => Promise.resolve(address)],
    ['a promise that rejects', () => Promise.reject(new Error('lookup failed'))],
    [
      'an error thrown',
      () => {
        throw new Error('lookup failed')
      },
    ],
  ]

  it.each(garbage)(
    '%s: refused like an invalid address (EmailSignin), no mail, nothing unhandled',
    async (_label, rule) => {
      const unhandled: unknown[] = []
      const note = (reason: unknown) => void unhandled.push(reason)
      process.on('unhandledRejection', note)
      try {
        const { service, userIds } = await start({ normalizeIdentifier: rule as (address: string) => string }, {})
        const res = await requestLink(service, new Browser(service), newAddress())
        expect(outcome(res)).toEqual(refused(service, 'EmailSignin'))
        expect(res.headers.get('location')).toBe(errorUrl(service, 'EmailSignin'))
        expect(await service.smtp.messagesAfter(100)).toEqual([])
        expect(service.smtp.recipientsAsked()).toEqual([])
        expect(userIds).toEqual([])
        expect(service.logs.map((entry) => entry.event)).toContain('email.refused')
        // The service still answers (a page, not a crash).
        expect((await fetch(`${service.base}/providers`)).status).toBe(200)
        await new Promise((resolve) => setImmediate(resolve))
        expect(unhandled).toEqual([])
      } finally {
        process.off('unhandledRejection', note)
      }
    },
  )
})
