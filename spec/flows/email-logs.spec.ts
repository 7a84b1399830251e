import { email, type LogEntry } from '../../lib'
import { serve } from '../support/app'
import { Browser } from '../support/browser'
import { linkInText } from '../support/smtp'
import {
  FROM,
  confirm,
  confirmForm,
  later,
  localPart,
  mailedLink,
  newAddress,
  openLink,
  outcome,
  refused,
  requestLink,
  signedInTo,
  startEmailService,
  stopAll,
  useLink,
  verifyRequestUrl,
  withParams,
  type EmailOptions,
} from '../support/email-harness'

/**
 * What an operator reads in the log of an e-mail sign-in: an entry for each thing that happened,
 * a message saying what it was (why a mail was not sent, naming only a code of the usual shape),
 * and the address named by its keyed hash, never written out.
 */

afterEach(stopAll)

const HASH = /^[\w-]{22}$/

function emailEntries(logs: LogEntry[]): LogEntry[] {
  return logs.filter((entry) => entry.event.startsWith('email.'))
}

/** The entries of `event` (the failure shows every entry, to see what was logged instead). */
function entriesOf(logs: LogEntry[], event: string): LogEntry[] {
  const found = logs.filter((entry) => entry.event === event)
  if (found.length === 0) throw new Error(`no ${event} entry in:\n${JSON.stringify(logs, null, 2)}`)
  return found
}

/** No entry holds any of the values, as written or percent-encoded. */
function expectNoEntryHolding(logs: LogEntry[], values: string[]): void {
  const written = values.flatMap((value) => [value, encodeURIComponent(value)])
  expect(logs.filter((entry) => written.some((value) => JSON.stringify(entry).includes(value)))).toEqual([])
}

describe('the log of a sign-in link', () => {
  it('names the address by one keyed hash: for its refused recipient, its sent mail and its rate limit alike', async () => {
    let refusing = true
    const service = await startEmailService({ rateLimits: { addressPerMinute: 2 } }, {}, { refuse: () => refusing })
    const browser = new Browser(service)
    const address = newAddress()

    expect(outcome(await requestLink(service, browser, address))).toEqual({
      status: 302,
      location: verifyRequestUrl(service),
      session: false,
    })
    refusing = false
    await mailedLink(service, browser, address)
    await requestLink(service, browser, address) // over addressPerMinute
    const other = newAddress()
    await mailedLink(service, browser, other)

    const entries = emailEntries(service.logs)
    const hash = entries[0]?.addressHash
    expect(hash).toMatch(HASH)
    const otherHash = entries[3]?.addressHash
    expect(otherHash).toMatch(HASH)
    expect(otherHash).not.toBe(hash)
    expect(entries).toEqual([
      {
        level: 'warn',
        event: 'email.refused',
        message:
          'no sign-in link was sent: the mail server refused the recipient (EENVELOPE 550); answered as for a sent mail',
        addressHash: hash,
        responseCode: 550,
      },
      { level: 'info', event: 'email.sent', message: expect.stringMatching(/link was sent/), addressHash: hash },
      {
        level: 'warn',
        event: 'email.rate_limited',
        message: expect.stringMatching(/no sign-in link was sent: over the address limit/),
        addressHash: hash,
        limit: 'address',
      },
      { level: 'info', event: 'email.sent', message: expect.stringMatching(/link was sent/), addressHash: otherHash },
    ])
    expectNoEntryHolding(service.logs, [address, localPart(address), other, localPart(other)])
  })

  it('says why nothing was sent: an address that is not one plain mailbox, the ip limit', async () => {
    const service = await startEmailService({ rateLimits: { ipPerHour: 1 } })
    const browser = new Browser(service)
    const malformed = `${localPart(newAddress())}@x.com,attacker@evil.com`
    expect(outcome(await requestLink(service, browser, malformed))).toEqual(refused(service, 'EmailSignin'))
    expect(entriesOf(service.logs, 'email.refused')).toEqual([
      { level: 'info', event: 'email.refused', message: expect.stringMatching(/not one plain mailbox/) },
    ])

    await mailedLink(service, browser, newAddress())
    const limited = newAddress()
    await requestLink(service, browser, limited)
    expect(entriesOf(service.logs, 'email.rate_limited')).toEqual([
      {
        level: 'warn',
        event: 'email.rate_limited',
        message: expect.stringMatching(/no sign-in link was sent: over the ip limit/),
        addressHash: expect.stringMatching(HASH),
        limit: 'ip',
      },
    ])
    expectNoEntryHolding(service.logs, [malformed, limited, localPart(limited)])
  })

  it('a link refused (tampered token): email.verification_failed says a link was refused', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const link = await mailedLink(service, browser, newAddress())
    const token = link.searchParams.get('token')!
    const tampered = withParams(link, { token: (token.startsWith('A') ? 'B' : 'A') + token.slice(1) })
    expect(outcome(await useLink(service, browser, tampered))).toEqual(refused(service))
    expect(entriesOf(service.logs, 'email.verification_failed')).toEqual([
      {
        level: 'warn',
        event: 'email.verification_failed',
        message: expect.stringMatching(/an e-mail link was refused/),
      },
    ])
  })

  it('a confirm POST without a valid CSRF token: csrf.invalid names the route and says nothing was spent', async () => {
    const service = await startEmailService()
    const browser = new Browser(service)
    const link = await mailedLink(service, browser, newAddress())
    const form = confirmForm(await openLink(service, browser, link))
    expect((await confirm(service, browser, { ...form.fields, csrfToken: 'wrong' })).status).toBe(302)
    expect(entriesOf(service.logs, 'csrf.invalid')).toEqual([
      {
        level: 'warn',
        event: 'csrf.invalid',
        message: expect.stringMatching(/without a valid CSRF token; it was not spent/),
        route: 'callback/email',
      },
    ])
    expectNoEntryHolding(service.logs, [link.searchParams.get('token')!])
  })
})

describe('the email.send_failed entry says why, from the code and reply code alone', () => {
  /** What the entry says in parentheses. */
  function reason(logs: LogEntry[]): string | undefined {
    const [entry] = entriesOf(logs, 'email.send_failed')
    return /^the sign-in mail could not be sent \((.*)\)$/.exec(entry!.message)?.[1]
  }

  it("the mail server closing down at RCPT TO (421): nodemailer's code and the reply code", async () => {
    const service = await startEmailService({}, {}, { refuse: () => true, refuseCode: 421 })
    const address = newAddress()
    expect(outcome(await requestLink(service, new Browser(service), address))).toEqual(refused(service, 'EmailSignin'))
    expect(reason(service.logs)).toMatch(/^ECONNECTION 421 at 127\.0\.0\.1:\d+$/)
    expectNoEntryHolding(service.logs, [address, localPart(address)])
  })

  type Thrown = (to: string, link: string) => unknown
  const withFields =
    (fields: Record<string, unknown>): Thrown =>
    () =>
      Object.assign(new Error('refused'), fields)

  const cases: Array<[string, Thrown, string]> = [
    ['a plain Error', () => new Error('the mail could not go'), 'failed'],
    ['a code of the usual shape', withFields({ code: 'ECONNECTION' }), 'ECONNECTION'],
    ['a code and a reply code', withFields({ code: 'EAUTH', responseCode: 535 }), 'EAUTH 535'],
    ['a reply code alone', withFields({ responseCode: 421 }), '421'],
    ['a code of 32 characters', withFields({ code: `E${'A'.repeat(31)}` }), `E${'A'.repeat(31)}`],
    ['a code of 33 characters', withFields({ code: `E${'A'.repeat(32)}` }), 'failed'],
    ['a code of 40 characters', withFields({ code: 'A'.repeat(40) }), 'failed'],
    ['a code in lower case', withFields({ code: 'lowercase' }), 'failed'],
    ['a code with a line break', withFields({ code: 'EX\nFORGED' }), 'failed'],
    ['a code that is not a string', withFields({ code: 42 }), 'failed'],
    ['a code that is an array', withFields({ code: ['ECONNECTION'] }), 'failed'],
    ['a reply code as a string', withFields({ responseCode: '550' }), 'failed'],
    ['a code that is not kept, with a reply code', withFields({ code: 'bad code', responseCode: 550 }), '550'],
    [
      'a message naming the recipient and holding the link',
      (to, link) => Object.assign(new Error(`<${to}>: mailbox unavailable; message was: ${link}`), { code: 'x' }),
      'failed',
    ],
    [
      'a message saying no answer came in time',
      () => new Error('the relay: no answer within 50 ms'),
      'no answer in time',
    ],
    ['an object, not an Error, saying no answer came in time', () => ({ message: 'no answer within 50 ms' }), 'failed'],
    ['a string, not an Error', () => 'no answer within 50 ms', 'failed'],
    ['null', () => null, 'failed'],
    [
      'an error whose code cannot be read',
      () =>
        Object.defineProperty(new Error('refused'), 'code', {
          get() {
            throw new Error('no code')
          },
        }),
      'failed',
    ],
  ]

  async function failingService(options: Partial<EmailOptions>) {
    const service = await serve({ providers: [email({ from: FROM, ...options })] })
    later(() => service.close())
    return service
  }

  async function expectReason(options: Partial<EmailOptions>, expected: string, seen: () => string[]) {
    const service = await failingService(options)
    const address = newAddress()
    expect(outcome(await requestLink(service, new Browser(service), address))).toEqual(refused(service, 'EmailSignin'))
    expect(reason(service.logs)).toBe(expected)
    expect(entriesOf(service.logs, 'email.send_failed')[0]).toMatchObject({
      level: 'error',
      addressHash: expect.stringMatching(HASH),
    })
    expectNoEntryHolding(service.logs, [address, localPart(address), ...seen()])
  }

  it.each(cases)('a transport throwing %s', async (_label, thrown, expected) => {
    const links: string[] = []
    const transport = {
      sendMail(message: { to: string; text: string }) {
        const link = /https?:\/\/\S+\/callback\/email\?[^\s<>"']+/.exec(message.text)![0]
        links.push(link, new URL(link).searchParams.get('token')!)
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a transport can reject with anything
        return Promise.reject(thrown(message.to, link))
      },
    }
    await expectReason({ transport }, expected, () => links)
  })

  it.each(cases)('a sendVerificationRequest throwing %s', async (_label, thrown, expected) => {
    const links: string[] = []
    const sendVerificationRequest = ({ identifier, url }: { identifier: string; url: string }) => {
      links.push(url, new URL(url).searchParams.get('token')!)
      throw thrown(identifier, url)
    }
    await expectReason({ sendVerificationRequest }, expected, () => links)
  })

  it('a transport that never answers within sendTimeout: no answer in time', async () => {
    const transport = { sendMail: () => new Promise<never>(() => {}) }
    await expectReason({ transport, sendTimeout: 200 }, 'no answer in time', () => [])
  })

  it('the control: a transport that sends leaves no email.send_failed entry and the link signs in', async () => {
    const texts: string[] = []
    const transport = {
      sendMail(message: { text: string }) {
        texts.push(message.text)
        return Promise.resolve({})
      },
    }
    const service = await failingService({ transport })
    const browser = new Browser(service)
    await requestLink(service, browser, newAddress())
    expect(service.logs.filter((entry) => entry.event === 'email.send_failed')).toEqual([])
    expect(outcome(await useLink(service, browser, linkInText(texts[0]!, service.base)))).toEqual(
      signedInTo(`${service.origin}/welcome`),
    )
  })
})
