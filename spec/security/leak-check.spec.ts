import { randomBytes } from 'node:crypto'
import type { LogEntry, LogLevel } from '../../lib'
import { stopAll } from '../support/email-harness'
import { addressIn, confirmLink, linkFor, startEmailApp } from '../support/email-setup'
import { captureOutput, encodings, expectNoLeaks, findLeaks, Secrets } from '../support/leaks'

/**
 * The leak check itself (./leaks): a check that cannot fail proves nothing. Every form of a secret
 * is found in every place a log can be (an entry at each level, a nested field, an Error, stdout,
 * stderr, the console), and so is a piece of a long token; a secret the flow never collected fails
 * the spec; and, end to end, text an app puts into an error of its own reaches the log through the
 * package, and the check finds it there.
 */

const logged = captureOutput()
afterEach(stopAll)

const token = randomBytes(32).toString('base64url')
const link = `http://localhost:3000/api/auth/callback/email?token=${token}&email=a%40example.com&callbackUrl=%2F`
const secrets = () => new Secrets().add('a token', token)
const entry = (level: LogLevel, fields: Record<string, unknown>): LogEntry => ({
  level,
  event: 'callback.error',
  message: 'm',
  ...fields,
})

describe('the search finds a secret', () => {
  const forms: Array<[string, string, string, string]> = [
    ...encodings(token).map(([form, text]): [string, string, string, string] => [
      `a token, ${form}`,
      'a token',
      token,
      text,
    ]),
    ...encodings(link).map(([form, text]): [string, string, string, string] => [
      `a link, ${form}`,
      'a link',
      link,
      text,
    ]),
  ]

  it.each(forms)('%s, in an entry at each level and in a nested field or an Error', (_case, label, value, text) => {
    const one = new Secrets().add(label, value)
    for (const level of ['error', 'warn', 'info', 'debug'] as const) {
      expect(findLeaks({ entries: [entry(level, { message: `x ${text} y` })], output: [] }, one)).toHaveLength(1)
      const nested = entry(level, { detail: { list: [`<${text}>`] } })
      expect(findLeaks({ entries: [nested], output: [] }, one)).toHaveLength(1)
      const error = entry(level, { cause: new Error(`failed: ${text}`) })
      expect(findLeaks({ entries: [error], output: [] }, one)).toHaveLength(1)
    }
  })

  it('in upper case, and 24 characters of it (a line that cut it short)', () => {
    const upper = [entry('info', { message: token.toUpperCase() })]
    expect(findLeaks({ entries: upper, output: [] }, secrets())).toHaveLength(1)
    expect(findLeaks({ entries: [], output: [`…${token.slice(5, 29)}…`] }, secrets())).toHaveLength(1)
    expect(findLeaks({ entries: [], output: [`…${token.slice(5, 28)}…`] }, secrets())).toEqual([])
  })

  it('written to stdout, stderr or the console during the spec, and in the default logger’s line', () => {
    const before = logged.output.length
    process.stdout.write(`a ${token}\n`)
    process.stderr.write(Buffer.from(`b ${encodeURIComponent(token)}\n`))
    console.log('c %s', token)
    console.error(new Error(token))
    logged.logger({ level: 'warn', event: 'callback.error', message: `d ${token}` })
    logged.logger({ level: 'debug', event: 'session.invalid', message: 'not written by the default logger' })
    const output = logged.output.slice(before)
    expect(output).toHaveLength(5)
    expect(findLeaks({ entries: [], output }, secrets())).toHaveLength(5)
    expect(logged.entries.map((e) => e.level)).toEqual(['warn', 'debug'])
    expect(() => expectNoLeaks(logged.ofThisTest(), secrets())).toThrow(/a token \(as written\) in log entry 0/)
  })

  it('and fails the spec when a secret was never collected', () => {
    expect(() => new Secrets().add('a code', null)).toThrow(/secret "a code" was not collected/)
    expect(() => new Secrets().add('a code', '')).toThrow(/not collected/)
    expect(() => secrets().expectCollected('a token', 'a verifier')).toThrow()
  })
})

describe('end to end, through the package', () => {
  // Not a leak of the package: the app wrote these messages. They show that what the package logs
  // of an app's error is found by the check (and that an app must keep secrets out of its errors).
  it("an app's own error naming the user, in events.signOut and callbacks.signIn: found", async () => {
    let refuse = false
    const app = await startEmailApp(
      logged,
      {},
      {
        events: {
          signOut: ({ record }) => {
            throw new Error(`audit failed for ${record?.userId}`)
          },
        },
        callbacks: {
          signIn: ({ user, email }) => {
            if (refuse && !email?.verificationRequest) throw new Error(`${user.email} is not invited`)
            return true
          },
        },
      },
    )
    const found = app.secrets()
    const browser = app.browser(found)
    const address = addressIn(found)
    await confirmLink(app, browser, found, await linkFor(app, browser, found, address))
    await browser.signOut()
    expect(findLeaks(logged.ofThisTest(), found)).toEqual([
      expect.stringMatching(/^e-mail address \(as written\) in log entry \d+ \(error event\.error\)/),
      expect.stringMatching(/^e-mail address \(as written\) in output \d+/),
      expect.stringMatching(/^e-mail local part \(as written\) in log entry \d+ \(error event\.error\)/),
      expect.stringMatching(/^e-mail local part \(as written\) in output \d+/),
    ])

    refuse = true
    const other = addressIn(found)
    const link = await linkFor(app, browser, found, other)
    expect((await confirmLink(app, browser, found, link)).headers.get('location')).toMatch(/error=AccessDenied/)
    expect(findLeaks(logged.ofThisTest(), found)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/local part \(as written\) in log entry \d+ \(warn callback\.error\)/),
      ]),
    )
    expect(() => expectNoLeaks(logged.ofThisTest(), found)).toThrow()
  })
})
