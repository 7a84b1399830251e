import { createTransport } from 'nodemailer'
import { email, type LogEntry } from '../../lib'
import { serve } from '../support/app'
import { Browser } from '../support/browser'
import { linkInText, startSmtp, type SmtpOptions } from '../support/smtp'
import {
  FROM,
  later,
  localPart,
  newAddress,
  outcome,
  refused,
  requestLink,
  startEmailService,
  stopAll,
  useLink,
  verifyRequestUrl,
} from '../support/email-harness'

/**
 * A mail server that refuses unknown recipients (an organisation's own domain) must not tell a
 * caller which addresses exist: a refused recipient gets the answer a sent mail gets, redirect and
 * JSON alike, no sooner than an accepted send takes, and no usable link; the log says the
 * recipient was refused. Only the mail system failing (nothing listening, a server closing down)
 * still answers EmailSignin.
 */

afterEach(stopAll)

/** Recipients whose local part starts with `unknown-` do not exist on this server. */
const UNKNOWN: SmtpOptions = { refuse: (address) => address.startsWith('unknown-') }
const unknownAddress = () => `unknown-${newAddress()}`

function entriesOf(logs: LogEntry[], event: string): LogEntry[] {
  return logs.filter((entry) => entry.event === event)
}

/** No entry holds any of the values, as written or percent-encoded. */
function expectNoEntryHolding(logs: LogEntry[], values: string[]): void {
  const written = values.flatMap((value) => [value, encodeURIComponent(value)])
  expect(logs.filter((entry) => written.some((value) => JSON.stringify(entry).includes(value)))).toEqual([])
}

describe('a recipient the mail server refuses', () => {
  it.each([550, 450])(
    '(%i) gets the answer a sent mail gets, as a redirect and as JSON, and the log says it was refused',
    async (refuseCode) => {
      const service = await startEmailService({}, {}, { ...UNKNOWN, refuseCode })
      const browser = new Browser(service)
      const [known, unknown] = [newAddress(), unknownAddress()]

      const knownRes = await requestLink(service, browser, known)
      const unknownRes = await requestLink(service, browser, unknown)
      expect(outcome(unknownRes)).toEqual({ status: 302, location: verifyRequestUrl(service), session: false })
      expect(outcome(unknownRes)).toEqual(outcome(knownRes))
      expect(await unknownRes.text()).toBe(await knownRes.text())

      const [knownJson, unknownJson] = [newAddress(), unknownAddress()]
      const answers = []
      for (const address of [knownJson, unknownJson]) {
        const res = await requestLink(service, browser, address, { json: true })
        answers.push({ status: res.status, type: res.headers.get('content-type'), body: await res.json() })
      }
      expect(answers[1]).toEqual(answers[0])
      expect(answers[1]).toMatchObject({ status: 200, body: { url: verifyRequestUrl(service) } })

      expect(service.smtp.messages().map((mail) => mail.envelope.to)).toEqual([[known], [knownJson]])
      expect(service.smtp.recipientsAsked()).toEqual([known, unknown, knownJson, unknownJson])
      const refusals = entriesOf(service.logs, 'email.refused')
      expect(refusals).toEqual(
        Array(2).fill({
          level: 'warn',
          event: 'email.refused',
          message: `no sign-in link was sent: the mail server refused the recipient (EENVELOPE ${refuseCode}); answered as for a sent mail`,
          addressHash: expect.stringMatching(/^[\w-]{22}$/),
          responseCode: refuseCode,
        }),
      )
      expect(entriesOf(service.logs, 'email.send_failed')).toEqual([])
      expectNoEntryHolding(service.logs, [unknown, localPart(unknown), unknownJson, localPart(unknownJson)])
    },
  )

  it('leaves no valid link: the link of the refused mail ends on Verification', async () => {
    const smtp = await startSmtp(UNKNOWN)
    later(() => smtp.close())
    // The spec's own nodemailer transport to that server, keeping what the service asked it to send.
    const smtpTransport = createTransport(smtp.url)
    const attempted: string[] = []
    const transport = {
      sendMail(message: Parameters<typeof smtpTransport.sendMail>[0]) {
        attempted.push(typeof message.text === 'string' ? message.text : '')
        return smtpTransport.sendMail(message)
      },
    }
    const service = await serve({ providers: [email({ from: FROM, transport })] })
    later(() => service.close())
    const browser = new Browser(service)
    const asked = await requestLink(service, browser, unknownAddress())
    expect(outcome(asked)).toEqual({ status: 302, location: verifyRequestUrl(service), session: false })
    expect(attempted).toHaveLength(1)
    expect(outcome(await useLink(service, browser, linkInText(attempted[0]!, service.base)))).toEqual(refused(service))
    expect(await browser.session()).toEqual({})
  })

  it('is answered no sooner than the accepted sends before it took (a server taking 300 ms per message)', async () => {
    const service = await startEmailService({ rateLimits: { ipPerHour: 100 } }, {}, { ...UNKNOWN, dataDelay: 300 })
    const browser = new Browser(service)
    const timed = async (address: string) => {
      const csrfToken = await browser.csrfToken()
      const started = performance.now()
      const res = await requestLink(service, browser, address, { csrfToken })
      const ms = performance.now() - started
      expect(outcome(res)).toEqual({ status: 302, location: verifyRequestUrl(service), session: false })
      return ms
    }
    const times: { known: number[]; unknown: number[] } = { known: [], unknown: [] }
    for (let round = 0; round < 3; round++) {
      times.known.push(await timed(newAddress()))
      times.unknown.push(await timed(unknownAddress()))
    }
    // Every accepted send took the server's 300 ms at least, so every one a refusal may be made to
    // resemble did: the refused answers wait as long. (A refusal alone takes a few milliseconds.)
    expect(Math.min(...times.known)).toBeGreaterThanOrEqual(300)
    expect(Math.min(...times.unknown)).toBeGreaterThanOrEqual(300)
    expect(entriesOf(service.logs, 'email.refused')).toHaveLength(3)
  })

  it('over the address limit, the answer waits as long too (it would tell that the address was just asked for)', async () => {
    const service = await startEmailService({}, {}, { dataDelay: 300 })
    const browser = new Browser(service)
    const address = newAddress()
    const csrfToken = await browser.csrfToken()
    expect(outcome(await requestLink(service, browser, address, { csrfToken }))).toEqual(
      outcome(await requestLink(service, browser, newAddress(), { csrfToken })),
    )
    const started = performance.now()
    const again = await requestLink(service, browser, address, { csrfToken })
    expect(performance.now() - started).toBeGreaterThanOrEqual(300)
    expect(outcome(again)).toEqual({ status: 302, location: verifyRequestUrl(service), session: false })
    expect(entriesOf(service.logs, 'email.rate_limited')).toHaveLength(1)
  })

  it('first thing after start, before any accepted send, still waits (the cold-start time, within sendTimeout)', async () => {
    const service = await startEmailService({ sendTimeout: 400 }, {}, UNKNOWN)
    const browser = new Browser(service)
    const csrfToken = await browser.csrfToken()
    const started = performance.now()
    const res = await requestLink(service, browser, unknownAddress(), { csrfToken })
    expect(performance.now() - started).toBeGreaterThanOrEqual(400)
    expect(outcome(res)).toEqual({ status: 302, location: verifyRequestUrl(service), session: false })
  })
})

describe("what counts as a refused recipient: nodemailer's error for it, thrown by any way of sending", () => {
  const refusal = (fields: Record<string, unknown> = {}) =>
    Object.assign(new Error("Can't send mail - all recipients were rejected"), {
      code: 'EENVELOPE',
      command: 'RCPT TO',
      responseCode: 550,
      rejected: ['someone@example.com'],
      ...fields,
    })
  const cases: Array<[string, () => unknown, 'sent' | 'EmailSignin']> = [
    ['the refusal', () => refusal(), 'sent'],
    ['a 4xx refusal (a soft bounce)', () => refusal({ responseCode: 452 }), 'sent'],
    ['the sender refused (MAIL FROM)', () => refusal({ command: 'MAIL FROM', rejected: [] }), 'EmailSignin'],
    ['the message refused after DATA', () => refusal({ command: 'DATA' }), 'EmailSignin'],
    ['the server closing down (421)', () => refusal({ responseCode: 421 }), 'EmailSignin'],
    ['a reply code that is not SMTP', () => refusal({ responseCode: 250 }), 'EmailSignin'],
    ['a reply code of 600', () => refusal({ responseCode: 600 }), 'EmailSignin'],
    ['a reply code as a string', () => refusal({ responseCode: '550' }), 'EmailSignin'],
    ['no recipient among rejected', () => refusal({ rejected: [] }), 'EmailSignin'],
    ['rejected that is not a list', () => refusal({ rejected: 'someone@example.com' }), 'EmailSignin'],
    ['another code', () => refusal({ code: 'EAUTH' }), 'EmailSignin'],
    [
      'authentication refused',
      () => Object.assign(new Error('auth'), { code: 'EAUTH', responseCode: 535 }),
      'EmailSignin',
    ],
    ['no connection', () => Object.assign(new Error('refused'), { code: 'ESOCKET' }), 'EmailSignin'],
    [
      'a refusal whose fields cannot be read',
      () =>
        Object.defineProperty(refusal(), 'rejected', {
          get() {
            throw new Error('no')
          },
        }),
      'EmailSignin',
    ],
    ['null', () => null, 'EmailSignin'],
  ]

  it.each(cases)('%s: %s', async (_label, thrown, answer) => {
    const sendVerificationRequest = () => {
      throw thrown()
    }
    const service = await serve({ providers: [email({ from: FROM, sendVerificationRequest, sendTimeout: 50 })] })
    later(() => service.close())
    const res = await requestLink(service, new Browser(service), newAddress())
    if (answer === 'sent') {
      expect(outcome(res)).toEqual({ status: 302, location: verifyRequestUrl(service), session: false })
      expect(entriesOf(service.logs, 'email.refused')).toHaveLength(1)
    } else {
      expect(outcome(res)).toEqual(refused(service, 'EmailSignin'))
      expect(entriesOf(service.logs, 'email.send_failed')).toHaveLength(1)
    }
  })
})

describe('the mail system failing still answers EmailSignin', () => {
  it('a server closing down (421 to RCPT TO) is not a refused recipient', async () => {
    const service = await startEmailService({}, {}, { refuse: () => true, refuseCode: 421 })
    const res = await requestLink(service, new Browser(service), newAddress())
    expect(outcome(res)).toEqual(refused(service, 'EmailSignin'))
    expect(entriesOf(service.logs, 'email.send_failed')).toHaveLength(1)
    expect(entriesOf(service.logs, 'email.refused')).toEqual([])
  })
})
