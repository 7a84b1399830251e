import { format } from 'node:util'
import type { LogEntry, Logger } from '../../lib'
import { defaultLogger } from '../../lib/infra/logger'
import { Browser } from './browser'
import { CookieJar, splitSetCookie } from './cookie-jar'

/**
 * The harness that proves nothing secret reaches a log. A spec collects the secrets a flow really
 * used (from the config, the cookies it was set, the mailed link, the IdP's traffic) into
 * `Secrets`, runs the flow with the package's `logger` keeping every entry (the logger gets every
 * level, debug included: the package filters nothing before it) and with `captureOutput()` keeping
 * whatever went to stdout, stderr or the console, then `expectNoLeaks` looks for every secret in
 * all of it, as written and in the encodings a careless line of code would produce.
 */

/** The secrets of one flow, each under a label saying what it is ("authorization code"). */
export class Secrets {
  private readonly values = new Map<string, Set<string>>()

  /** Keeps `value` under `label`; a value that is missing fails the spec (a check of nothing passes). */
  add(label: string, value: string | null | undefined): this {
    if (typeof value !== 'string' || value.length < 8)
      throw new Error(`secret "${label}" was not collected (got ${JSON.stringify(value)})`)
    const known = this.values.get(label) ?? new Set<string>()
    this.values.set(label, known.add(value))
    return this
  }

  /** Fails unless each label has at least one value: the flow really used what the spec claims it checks. */
  expectCollected(...labels: string[]): void {
    expect(labels.filter((label) => !this.values.has(label))).toEqual([])
  }

  *entries(): Generator<[string, string]> {
    for (const [label, values] of this.values) for (const value of values) yield [label, value]
  }
}

/** The forms of `value` worth looking for: as written, and re-encoded the ways code plausibly does it. */
export function encodings(value: string): Array<[string, string]> {
  const utf8 = Buffer.from(value, 'utf8')
  const forms: Array<[string, string]> = [
    ['as written', value],
    ['URL-encoded', encodeURIComponent(value)],
    ['URL-encoded twice', encodeURIComponent(encodeURIComponent(value))],
    ['form-encoded', new URLSearchParams({ v: value }).toString().slice(2)],
    ['JSON-escaped', JSON.stringify(value).slice(1, -1)],
    ['base64', utf8.toString('base64')],
    ['base64url', utf8.toString('base64url')],
    ['hex', utf8.toString('hex')],
  ]
  // Random tokens are base64url or hex: their bytes may be re-encoded the other way.
  if (/^[\w-]+$/.test(value) && Buffer.from(value, 'base64url').toString('base64url') === value) {
    const bytes = Buffer.from(value, 'base64url')
    forms.push(['its bytes in hex', bytes.toString('hex')], ['its bytes in base64', bytes.toString('base64')])
  }
  if (/^(?:[\da-f]{2})+$/i.test(value)) {
    const bytes = Buffer.from(value, 'hex')
    forms.push(
      ['its bytes in base64url', bytes.toString('base64url')],
      ['its bytes in base64', bytes.toString('base64')],
    )
  }
  const seen = new Set<string>()
  return forms.filter(([, form]) => !seen.has(form.toLowerCase()) && seen.add(form.toLowerCase()))
}

/** Long tokens (ID tokens, sealed cookies) are also looked for in pieces: a log line may cut one short. */
const WINDOW = 24
const TOKEN_LIKE = /^[\w.~+/=|-]+$/

/** Every string inside `value` (keys too, an Error's message and stack), however deep. */
export function stringsOf(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === 'string') return [value]
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return [String(value)]
  if (typeof value !== 'object' || value === null || seen.has(value)) return []
  seen.add(value)
  const own = Object.getOwnPropertyNames(value).flatMap((key) => [
    key,
    ...stringsOf((value as Record<string, unknown>)[key], seen),
  ])
  return value instanceof Error ? [value.message, value.stack ?? '', ...own] : own
}

export interface Logged {
  entries: readonly LogEntry[]
  output: readonly string[]
}

/** Where each secret turns up, one line each: `<label> (<form>) in <place>: <the text around it>`. */
export function findLeaks(logged: Logged, secrets: Secrets): string[] {
  const places = [
    ...logged.entries.map((entry, i) => ({
      name: `log entry ${i} (${entry.level} ${entry.event})`,
      text: stringsOf(entry).join('\n').toLowerCase(),
    })),
    ...logged.output.map((text, i) => ({ name: `output ${i}`, text: text.toLowerCase() })),
  ]
  const found: string[] = []
  for (const [label, value] of secrets.entries()) {
    for (const place of places) {
      const hit = encodings(value).find(([, form]) => place.text.includes(form.toLowerCase()))
      const piece = hit ? undefined : pieceIn(value.toLowerCase(), place.text)
      if (hit) found.push(`${label} (${hit[0]}) in ${place.name}: ${around(place.text, hit[1].toLowerCase())}`)
      else if (piece) found.push(`${label} (${WINDOW} characters of it) in ${place.name}: ${around(place.text, piece)}`)
    }
  }
  return found
}

function pieceIn(value: string, text: string): string | undefined {
  if (value.length <= WINDOW || !TOKEN_LIKE.test(value)) return undefined
  for (let i = 0; i + WINDOW <= value.length; i++) {
    const piece = value.slice(i, i + WINDOW)
    if (text.includes(piece)) return piece
  }
  return undefined
}

function around(text: string, form: string): string {
  const at = text.indexOf(form)
  return JSON.stringify(text.slice(Math.max(0, at - 60), at + form.length + 60))
}

/**
 * The spec's verdict: no secret anywhere, listing every place one was found. First, that the search
 * can fail at all: each secret, put into a debug entry of its own, is found.
 */
export function expectNoLeaks(logged: Logged, secrets: Secrets): void {
  const planted = [...secrets.entries()].filter(([label, value]) => {
    const one = new Secrets().add(label, value)
    return (
      findLeaks({ entries: [{ level: 'debug', event: 'client.log', message: value }], output: [] }, one).length === 0
    )
  })
  expect(planted).toEqual([])
  expect(findLeaks(logged, secrets)).toEqual([])
}

export interface Capture extends Logged {
  /** For the `logger` option: keeps every entry, and passes it to the default logger too. */
  logger: Logger
  /**
   * What this test logged, with what start-up logged: each test is checked against its own
   * secrets, and a leak found in one test does not fail the next.
   */
  ofThisTest(): Logged
}

/**
 * Keeps every log entry the package makes and everything written to stdout, stderr and the console
 * while the spec file runs (from its beforeAll to its afterAll, so start-up is included), instead of
 * printing it (SHOW_OUTPUT=1 prints it too). The logger also hands each entry to the package's
 * default logger, so that the one line it writes on stderr is searched as well; a dependency
 * (ioredis, nodemailer, Passport) would write to the console.
 */
export function captureOutput(): Capture {
  const output: string[] = []
  const entries: LogEntry[] = []
  const restores: Array<() => void> = []
  let startup: { entries: number; output: number } | undefined
  let test = { entries: 0, output: 0 }
  beforeAll(() => {
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream) as (...args: unknown[]) => boolean
      const spy = jest.spyOn(stream, 'write').mockImplementation((...args: unknown[]) => {
        output.push(String(args[0]))
        if (process.env.SHOW_OUTPUT) return write(...args)
        // A writer waiting for its callback must not wait for ever.
        const done = args.find((arg): arg is () => void => typeof arg === 'function')
        if (done) setImmediate(done)
        return true
      })
      restores.push(() => spy.mockRestore())
    }
    for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
      const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        output.push(format(...args))
      })
      restores.push(() => spy.mockRestore())
    }
  })
  beforeEach(() => {
    test = { entries: entries.length, output: output.length }
    startup ??= test
  })
  afterAll(() => {
    for (const restore of restores.splice(0)) restore()
  })
  const logger: Logger = (entry) => {
    entries.push(entry)
    defaultLogger(entry)
  }
  const since = <T>(all: T[], from: 'entries' | 'output') => [
    ...all.slice(0, startup?.[from] ?? 0),
    ...all.slice(test[from]),
  ]
  return {
    entries,
    output,
    logger,
    ofThisTest: () => ({ entries: since(entries, 'entries'), output: since(output, 'output') }),
  }
}

/** A cookie jar that keeps, under `cookie <name>`, the value of every cookie any answer set. */
export class RecordingJar extends CookieJar {
  constructor(private readonly secrets: Secrets) {
    super()
  }

  override store(url: string | URL, response: { headers: Headers }): void {
    for (const line of response.headers.getSetCookie()) {
      const cookie = splitSetCookie(line)
      // Deletions (an empty value) hold nothing; every flow cookie counts as one kind.
      const kind = cookie?.name.startsWith('auth.flow.') ? 'auth.flow.*' : cookie?.name
      if (cookie && cookie.value.length >= 8) this.secrets.add(`cookie ${kind}`, cookie.value)
    }
    super.store(url, response)
  }
}

/** A browser whose cookies and CSRF tokens land in `secrets`. */
export class RecordingBrowser extends Browser {
  constructor(
    service: { base: string; origin: string },
    private readonly secrets: Secrets,
  ) {
    super(service, new RecordingJar(secrets))
  }

  override async csrfToken(): Promise<string> {
    const token = await super.csrfToken()
    this.secrets.add('CSRF token', token)
    return token
  }
}
